// Account life cycle: registration, email verification, resending it, and password reset.
// Answers never reveal whether an email has an account: the same reply, a mail to the address instead.
import { getDb, type DB } from '~/db/db.server'
import { sendMailInBackground } from '~/features/mail/mailer.server'
import { grantWelcomeBonus } from '~/features/credits/ledger.server'
import { accountExistsMail, appLink, passwordResetMail, verificationMail } from './emails.server'
import { hashPassword } from './password.server'
import { createSession, revokeOtherSessions, type SessionUser } from './session.server'
import { issueToken, retireTokens, spendToken, TOKEN_LIFETIME_HOURS } from './tokens.server'

export const VERIFICATION_HOURS = TOKEN_LIFETIME_HOURS.verify_email
export const RESET_HOURS = TOKEN_LIFETIME_HOURS.reset_password

export interface Registration {
  email: string
  password: string
  first_name: string | null
  last_name: string | null
}

const userColumns = ['id', 'email', 'first_name', 'last_name'] as const

function findUserByEmail(email: string, db: DB) {
  return db
    .selectFrom('users')
    .select([...userColumns, 'email_verified_at'])
    .where('email', '=', email)
    .executeTakeFirst()
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && (error as { code?: unknown }).code === '23505'
}

async function mailVerification(user: { id: string; email: string; first_name: string | null }, db: DB) {
  const { token } = await issueToken(user.id, 'verify_email', db)
  sendMailInBackground(verificationMail(user.email, user.first_name, appLink('/verify-email', { token }), VERIFICATION_HOURS))
}

/**
 * Creates an unverified account and mails its verification link. An email that already has an
 * account gets a mail instead (a fresh link if it is still unverified, else a note to sign in), and
 * the caller sees the same answer either way.
 */
export async function registerUser(input: Registration, db: DB = getDb()): Promise<{ email: string; expiresInHours: number }> {
  // Hash first, whatever happens next: an existing account must not answer faster.
  const passwordHash = await hashPassword(input.password)
  const answer = { email: input.email, expiresInHours: VERIFICATION_HOURS }
  const existing = await findUserByEmail(input.email, db)
  if (!existing) {
    try {
      const user = await db
        .insertInto('users')
        .values({ email: input.email, password_hash: passwordHash, first_name: input.first_name, last_name: input.last_name })
        .returning(['id', 'email', 'first_name'])
        .executeTakeFirstOrThrow()
      await mailVerification(user, db)
      return answer
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      // Registered by a concurrent request a moment ago: treat it as the existing account below.
    }
  }
  const account = existing ?? (await findUserByEmail(input.email, db))
  if (!account) return answer
  if (account.email_verified_at) {
    sendMailInBackground(accountExistsMail(account.email, account.first_name, appLink('/login')))
  } else {
    await mailVerification(account, db)
  }
  return answer
}

/** A new verification link for an unverified account; silently nothing otherwise. */
export async function resendVerification(email: string, db: DB = getDb()): Promise<void> {
  const account = await findUserByEmail(email, db)
  if (!account || account.email_verified_at) return
  await mailVerification(account, db)
}

export const VERIFY_ERRORS = {
  unknown: 'This verification link is not valid. Please use the latest link from your email.',
  used: 'This verification link has already been used. Sign in to continue.',
  expired: 'This verification link has expired. Sign in with your email and password to get a new one.',
} as const

export type VerifyOutcome =
  | { ok: true; user: SessionUser; session: { token: string; sessionId: string; expiresAt: Date }; balance: number; bonusGranted: boolean }
  | { ok: false; error: string }

/** Spends a verification token: marks the email verified, grants the welcome bonus once, signs in. */
export async function verifyEmail(token: string, options: { userAgent?: string | null } = {}, db: DB = getDb()): Promise<VerifyOutcome> {
  const spent = await spendToken(token, 'verify_email', db)
  if (!spent.ok) return { ok: false, error: VERIFY_ERRORS[spent.reason] }
  const user = await db
    .updateTable('users')
    .set((eb) => ({ email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(new Date())), updated_at: new Date() }))
    .where('id', '=', spent.userId)
    .returning([...userColumns])
    .executeTakeFirstOrThrow()
  await retireTokens(user.id, 'verify_email', db)
  const bonus = await grantWelcomeBonus(user.id, db)
  const session = await createSession(user.id, { userAgent: options.userAgent, db })
  return { ok: true, user, session, balance: bonus.balance, bonusGranted: bonus.granted }
}

/** Mails a one-hour, single-use reset link when the email has an account; the caller never learns which. */
export async function requestPasswordReset(email: string, db: DB = getDb()): Promise<void> {
  const account = await findUserByEmail(email, db)
  if (!account) return
  const { token } = await issueToken(account.id, 'reset_password', db)
  sendMailInBackground(passwordResetMail(account.email, account.first_name, appLink('/reset-password', { token }), RESET_HOURS))
}

export const RESET_ERRORS = {
  unknown: 'This reset link is not valid. Please request a new one.',
  used: 'This reset link has already been used. Please request a new one if you still need it.',
  expired: 'This reset link has expired. Please request a new one.',
} as const

/**
 * Spends a reset token and sets the new password. Every session of the account except the caller's
 * own (when the caller is that user) is revoked: whoever knew the old password is signed out.
 */
export async function confirmPasswordReset(
  token: string,
  password: string,
  options: { keepSessionId?: string | null } = {},
  db: DB = getDb(),
): Promise<{ ok: true; userId: string } | { ok: false; error: string }> {
  // Hash before spending, so a slow hash can never leave a token spent and the password unchanged.
  const passwordHash = await hashPassword(password)
  const spent = await spendToken(token, 'reset_password', db)
  if (!spent.ok) return { ok: false, error: RESET_ERRORS[spent.reason] }
  const before = await db.selectFrom('users').select('email_verified_at').where('id', '=', spent.userId).executeTakeFirstOrThrow()
  await db
    .updateTable('users')
    .set((eb) => ({
      password_hash: passwordHash,
      // The link reached the inbox, which is all a verification link proves: an account that never
      // verified is verified now (and gets its welcome bonus) instead of being stuck.
      email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(new Date())),
      updated_at: new Date(),
    }))
    .where('id', '=', spent.userId)
    .execute()
  await retireTokens(spent.userId, 'reset_password', db)
  await revokeOtherSessions(spent.userId, options.keepSessionId ?? null, db)
  if (!before.email_verified_at) {
    await retireTokens(spent.userId, 'verify_email', db)
    await grantWelcomeBonus(spent.userId, db)
  }
  return { ok: true, userId: spent.userId }
}
