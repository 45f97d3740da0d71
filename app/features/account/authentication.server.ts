// Who is calling: a session (the cookie, or `Authorization: Token`), an API key (`Authorization:
// Bearer`, or `X-Api-Key`), or nobody. The Authorization header wins over the cookie, as API clients expect. Sessions
// themselves live in auth/session.server.ts, keys in api-keys/keys.server.ts; this is where they meet.
import { getDb, type DbOrTx } from '~/db/db.server'
import { authenticateApiKey, type ApiKeyRef } from '~/features/api-keys/keys.server'
import { API_KEY_HEADER, presentedApiKey } from '~/features/api-keys/presented-key'
import { findSession, sessionCookie, type SessionUser } from '~/features/auth/session.server'

export type Authentication =
  | { kind: 'anonymous' }
  /** A token or session cookie was sent but names no live session (expired, revoked, forged). */
  | { kind: 'invalid'; via: 'cookie' | 'token' }
  /** An `Authorization: Bearer` API key that is malformed, revoked or unknown. */
  | { kind: 'invalid'; via: 'key'; reason: 'malformed' | 'invalid' }
  /** workingTeamId: the team the session works as (teams.server.ts setWorkingTeam), not yet checked for membership. */
  | { kind: 'user'; user: SessionUser; sessionId: string; workingTeamId: string | null; via: 'cookie' | 'token'; token: string }
  /** An API key: the user it belongs to, without a session (nothing to sign out). */
  | { kind: 'key'; user: SessionUser; apiKey: ApiKeyRef }

type Credential = { scheme: 'token' | 'bearer'; value: string } | null | undefined

/** The Authorization header: a session `Token`, an API key as `Bearer` (or in X-Api-Key), null when unreadable. */
function presentedCredential(request: Request): Credential {
  const header = request.headers.get('authorization')
  const key = presentedApiKey(header, request.headers.get(API_KEY_HEADER))
  if (key.kind === 'conflict') return null
  if (key.kind === 'key') return { scheme: 'bearer', value: key.key }
  if (!header) return undefined
  const match = /^(Token|Bearer)\s+(\S+)\s*$/i.exec(header)
  if (!match) return null
  return { scheme: match[1].toLowerCase() as 'token' | 'bearer', value: match[2] }
}

/** Who is calling: the Authorization header (Token or Bearer key) wins over the session cookie, as API clients expect. */
export async function getAuthentication(request: Request, db: DbOrTx = getDb()): Promise<Authentication> {
  const credential = presentedCredential(request)
  if (credential === null) return { kind: 'invalid', via: 'token' }
  if (credential?.scheme === 'bearer') {
    const found = await authenticateApiKey(credential.value, db)
    return found.kind === 'key' ? found : { kind: 'invalid', via: 'key', reason: found.kind }
  }
  if (credential) {
    const token = credential.value
    const found = await findSession(token, db)
    return found ? { kind: 'user', via: 'token', token, ...found } : { kind: 'invalid', via: 'token' }
  }
  const cookieToken: unknown = await sessionCookie().parse(request.headers.get('cookie'))
  if (typeof cookieToken !== 'string' || !cookieToken) return { kind: 'anonymous' }
  const found = await findSession(cookieToken, db)
  return found ? { kind: 'user', via: 'cookie', token: cookieToken, ...found } : { kind: 'invalid', via: 'cookie' }
}

/** The user behind a session or an API key. */
export function authenticatedUser(auth: Authentication): SessionUser | null {
  return auth.kind === 'user' || auth.kind === 'key' ? auth.user : null
}
