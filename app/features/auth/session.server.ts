// Server-side sessions. A sign-in creates one row; the browser holds its token in an httpOnly
// cookie and API clients send it as `Authorization: Token {token}`. Only a hash of the token is
// stored, so a database leak does not hand out sessions. Both routes reach the same row, so
// revoking it signs out both. Who is calling (a session, an API key or nobody) is decided in
// features/account/authentication.server.ts.
import { createHash, randomBytes } from 'node:crypto'
import { getDb, type DbOrTx } from '~/db/db.server'
import type { SessionUser } from '~/db/schema'
import { signedCookie } from '~/utils/signed-cookie.server'
import { startAuthSweeper } from './sweeper.server'

export const SESSION_TTL_DAYS = 30

// Defined beside the users table, where the API keys (below auth) read it too.
export type { SessionUser }

export function sessionCookie() {
  return signedCookie('fs_session', { maxAgeSeconds: SESSION_TTL_DAYS * 24 * 60 * 60 })
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

/** Signs the user out everywhere (a password reset, decision 162); how many live sessions it ended. */
export async function revokeAllSessions(userId: string, db: DbOrTx = getDb()): Promise<number> {
  const revoked = await db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst()
  return Number(revoked.numUpdatedRows)
}

/**
 * The live session a token names (not expired, not revoked), with its user and the team it works as
 * (read here, in the same statement: every signed-in request that pays asks for it).
 */
export async function findSession(
  token: string,
  db: DbOrTx = getDb(),
): Promise<{ user: SessionUser; sessionId: string; workingTeamId: string | null } | null> {
  startAuthSweeper()
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.id as session_id', 'sessions.working_team_id', 'users.id', 'users.email', 'users.first_name', 'users.last_name'])
    .where('sessions.token_hash', '=', hashToken(token))
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', new Date())
    .executeTakeFirst()
  if (!row) return null
  const { session_id, working_team_id, ...user } = row
  return { user, sessionId: session_id, workingTeamId: working_team_id }
}

export async function sessionCookieHeader(token: string): Promise<string> {
  return sessionCookie().serialize(token)
}

export async function clearSessionCookieHeader(): Promise<string> {
  return sessionCookie().serialize('', { maxAge: 0 })
}
