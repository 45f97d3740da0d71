// Mailed single-use tokens (email verification, password reset). Only a hash is stored; a token is
// spent by one conditional update, so two clicks on the same link cannot both succeed. A verification
// token remembers the browser that asked for it (signup-browser.server.ts): only that one is signed in at once.
import { getDb, type DbOrTx } from '~/db/db.server'
import { hashToken, newToken } from './session.server'

export type TokenPurpose = 'verify_email' | 'reset_password'

export const TOKEN_LIFETIME_HOURS: Record<TokenPurpose, number> = {
  verify_email: 24,
  reset_password: 1,
}

/** browserHash: the hashed key of the browser that asked for the link (verification links only, decision 162). */
export async function issueToken(
  userId: string,
  purpose: TokenPurpose,
  db: DbOrTx = getDb(),
  now = new Date(),
  browserHash: string | null = null,
) {
  const token = newToken()
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_HOURS[purpose] * 3_600_000)
  await db
    .insertInto('user_tokens')
    .values({ user_id: userId, purpose, token_hash: hashToken(token), expires_at: expiresAt, browser_hash: browserHash })
    .execute()
  return { token, expiresAt }
}

/**
 * A live (unspent, unexpired) token's account and the browser it was asked from, without spending it:
 * what a link's page shows before anything happens (whose account the link is for).
 */
export async function peekToken(
  token: string,
  purpose: TokenPurpose,
  db: DbOrTx = getDb(),
): Promise<{ userId: string; email: string; browserHash: string | null } | null> {
  const row = await db
    .selectFrom('user_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 'u.email', 't.browser_hash'])
    .where('t.token_hash', '=', hashToken(token))
    .where('t.purpose', '=', purpose)
    .where('t.used_at', 'is', null)
    .where('t.expires_at', '>', new Date())
    .executeTakeFirst()
  return row ? { userId: row.user_id, email: row.email, browserHash: row.browser_hash } : null
}

export type SpendResult = { ok: true; userId: string } | { ok: false; reason: 'unknown' | 'used' | 'expired' }

export async function spendToken(token: string, purpose: TokenPurpose, db: DbOrTx = getDb()): Promise<SpendResult> {
  const now = new Date()
  const spent = await db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst()
  if (spent) return { ok: true, userId: spent.user_id }
  // Only now look at why: the answer differs, the outcome (nothing spent) does not.
  const row = await db
    .selectFrom('user_tokens')
    .select(['used_at', 'expires_at'])
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .executeTakeFirst()
  if (!row) return { ok: false, reason: 'unknown' }
  return { ok: false, reason: row.used_at ? 'used' : 'expired' }
}

/** Retires every other outstanding token of this kind, e.g. older verification links once one worked. */
export async function retireTokens(userId: string, purpose: TokenPurpose, db: DbOrTx = getDb()) {
  await db
    .updateTable('user_tokens')
    .set({ used_at: new Date() })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute()
}
