// Server-side sessions. A sign-in creates one row; the browser holds its token in an httpOnly
// cookie and API clients send it as `Authorization: Token {token}`. Only a hash of the token is
// stored, so a database leak does not hand out sessions. Both routes reach the same row, so
// revoking it signs out both.
import { createHash, randomBytes } from 'node:crypto'
import { createCookie } from '@remix-run/node'
import { config } from '~/config.server'
import { getDb, type DbOrTx } from '~/db/db.server'
import { authenticateApiKey, type ApiKeyRef } from '~/features/api-keys/keys.server'
import { singleton } from '~/utils/singleton.server'
import { startAuthSweeper } from './sweeper.server'

export const SESSION_TTL_DAYS = 30

export interface SessionUser {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
}

export type Authentication =
  | { kind: 'anonymous' }
  /** A token or session cookie was sent but names no live session (expired, revoked, forged). */
  | { kind: 'invalid'; via: 'cookie' | 'token' }
  /** An `Authorization: Bearer` API key that is malformed, revoked or unknown. */
  | { kind: 'invalid'; via: 'key'; reason: 'malformed' | 'invalid' }
  | { kind: 'user'; user: SessionUser; sessionId: string; via: 'cookie' | 'token'; token: string }
  /** An API key: the user it belongs to, without a session (nothing to sign out). */
  | { kind: 'key'; user: SessionUser; apiKey: ApiKeyRef }

export function sessionCookie() {
  return singleton('session-cookie', () =>
    createCookie('fs_session', {
      httpOnly: true,
      sameSite: 'lax',
      secure: config().secureCookies,
      path: '/',
      maxAge: SESSION_TTL_DAYS * 24 * 60 * 60,
      secrets: [config().sessionSecret],
    }),
  )
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

export async function createSession(
  userId: string,
  options: { userAgent?: string | null; db?: DbOrTx; now?: Date } = {},
): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
  startAuthSweeper()
  const db = options.db ?? getDb()
  const token = newToken()
  const expiresAt = new Date((options.now ?? new Date()).getTime() + SESSION_TTL_DAYS * 86_400_000)
  const row = await db
    .insertInto('sessions')
    .values({
      user_id: userId,
      token_hash: hashToken(token),
      expires_at: expiresAt,
      user_agent: options.userAgent?.slice(0, 300) ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { token, sessionId: row.id, expiresAt }
}

export async function revokeSession(sessionId: string, db: DbOrTx = getDb()): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: new Date() }).where('id', '=', sessionId).execute()
}

export async function revokeOtherSessions(userId: string, keepSessionId: string | null, db: DbOrTx = getDb()) {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
  if (keepSessionId) query = query.where('id', '!=', keepSessionId)
  await query.execute()
}

type Credential = { scheme: 'token' | 'bearer'; value: string } | null | undefined

/** The Authorization header: a session `Token`, an API key as `Bearer`, null when unreadable. */
function presentedCredential(request: Request): Credential {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  const match = /^(Token|Bearer)\s+(\S+)\s*$/i.exec(header)
  if (!match) return null
  return { scheme: match[1].toLowerCase() as 'token' | 'bearer', value: match[2] }
}

async function lookup(token: string, db: DbOrTx): Promise<{ user: SessionUser; sessionId: string } | null> {
  startAuthSweeper()
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.id as session_id', 'users.id', 'users.email', 'users.first_name', 'users.last_name'])
    .where('sessions.token_hash', '=', hashToken(token))
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', new Date())
    .executeTakeFirst()
  if (!row) return null
  const { session_id, ...user } = row
  return { user, sessionId: session_id }
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
    const found = await lookup(token, db)
    return found ? { kind: 'user', via: 'token', token, ...found } : { kind: 'invalid', via: 'token' }
  }
  const cookieToken: unknown = await sessionCookie().parse(request.headers.get('cookie'))
  if (typeof cookieToken !== 'string' || !cookieToken) return { kind: 'anonymous' }
  const found = await lookup(cookieToken, db)
  return found ? { kind: 'user', via: 'cookie', token: cookieToken, ...found } : { kind: 'invalid', via: 'cookie' }
}

/** The user behind a session or an API key. */
export function authenticatedUser(auth: Authentication): SessionUser | null {
  return auth.kind === 'user' || auth.kind === 'key' ? auth.user : null
}

export async function getOptionalUser(request: Request): Promise<SessionUser | null> {
  return authenticatedUser(await getAuthentication(request))
}

export async function sessionCookieHeader(token: string): Promise<string> {
  return sessionCookie().serialize(token)
}

export async function clearSessionCookieHeader(): Promise<string> {
  return sessionCookie().serialize('', { maxAge: 0 })
}
