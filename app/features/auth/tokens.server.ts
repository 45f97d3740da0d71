// Mailed single-use tokens (email verification, password reset). Only a hash is stored; a token is
// spent by one conditional update, so two clicks on the same link cannot both succeed.
import { getDb, type DbOrTx } from '~/db/db.server'
import { hashToken, newToken } from './session.server'

export type TokenPurpose = 'verify_email' | 'reset_password'

export const TOKEN_LIFETIME_HOURS: Record<TokenPurpose, number> = {
  verify_email: 24,
  reset_password: 1,
}

export async function issueToken(userId: string, purpose: TokenPurpose, db: DbOrTx = getDb(), now = new Date()) {
  const token = newToken()
  const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_HOURS[purpose] * 3_600_000)
  await db
    .insertInto('user_tokens')
    .values({ user_id: userId, purpose, token_hash: hashToken(token), expires_at: expiresAt })
    .execute()
  return { token, expiresAt }
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
