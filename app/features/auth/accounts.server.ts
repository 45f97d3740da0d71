// Account life cycle: registration, email verification, resending it, and password reset.
// Answers never reveal whether an email has an account: the same reply, a mail to the address instead.
// Each change of several rows runs in one transaction (the caller's, when it passes one: dbOrTx), so
// a failure part-way leaves nothing half-written; mail goes out only once the rows are committed.
import type { Transaction } from 'kysely'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { sendMailInBackground } from '~/features/mail/mailer.server'
import { grantWelcomeBonus } from '~/features/credits/ledger.server'
import { revokeKeysMadeBy } from '~/features/api-keys/keys.server'
import { accountExistsMail, appLink, passwordChangedMail, passwordResetMail, verificationMail } from './emails.server'
import { hashPassword } from './password.server'
import { DEFAULT_AFTER_SIGN_IN, DEVELOPERS_ANCHOR } from './redirect'
import { createSession, revokeAllSessions, type SessionUser } from './session.server'
import { browserHash } from './signup-browser.server'
import { issueToken, peekToken, retireTokens, spendToken, TOKEN_LIFETIME_HOURS } from './tokens.server'

export const VERIFICATION_HOURS = TOKEN_LIFETIME_HOURS.verify_email
export const RESET_HOURS = TOKEN_LIFETIME_HOURS.reset_password

export interface Registration {
  email: string
  password: string
  first_name: string | null
  last_name: string | null
}

const userColumns = ['id', 'email', 'first_name', 'last_name'] as const

function findUserByEmail(email: string, db: DbOrTx) {
  return db
    .selectFrom('users')
    .select([...userColumns, 'email_verified_at'])
    .where('email', '=', email)
    .executeTakeFirst()
}

type MailedUser = { id: string; email: string; first_name: string | null }

/**
 * Where the account goes once the mailed link is used: a same-site path the caller has already
 * checked with safeRedirectPath (e.g. the team invite a sign-up started from). It rides in the link as
 * `from`, beside the token, and /verify-email checks it again before following it: a link's query is
 * anyone's to edit. The token stays what it was: random, stored hashed, spent once.
 */
export interface AfterVerification {
  next?: string | null
  /**
   * The key of the browser asking for the link (signup-browser.server.ts): only a link opened where
   * this key is signs in at once and carries its guest runs (decision 162). Null: no browser.
   */
  browserKey?: string | null
}

/** `{ from }` for a mailed link, unless it is the default (links stay short). */
function fromQuery(next: string | null | undefined): Record<string, string> {
  return next && next !== DEFAULT_AFTER_SIGN_IN ? { from: next } : {}
}

/** A new verification token; the link is mailed by the caller once the token is committed. */
async function issueVerification(user: MailedUser, db: DbOrTx, options: AfterVerification): Promise<() => void> {
  const { token } = await issueToken(user.id, 'verify_email', db, new Date(), browserHash(options.browserKey ?? null))
  const link = appLink('/verify-email', { token, ...fromQuery(options.next) })
  return () => sendMailInBackground(verificationMail(user.email, user.first_name, link, VERIFICATION_HOURS))
}

/**
 * Creates an unverified account and mails its verification link. An email that already has an
 * account gets a mail instead (a fresh link if it is still unverified, else a note to sign in), and
 * the caller sees the same answer either way.
 */
export async function registerUser(
  input: Registration,
  options: AfterVerification = {},
  db: DbOrTx = getDb(),
): Promise<{ email: string; expiresInHours: number }> {
  // Hash first, whatever happens next: an existing account must not answer faster.
  const passwordHash = await hashPassword(input.password)
  const answer = { email: input.email, expiresInHours: VERIFICATION_HOURS }
  // The account and its first link commit together: never an account nobody can verify.
  const sendMail = await executeTx(db, async (trx) => {
    const created = await trx
      .insertInto('users')
      .values({ email: input.email, password_hash: passwordHash, first_name: input.first_name, last_name: input.last_name })
      // Registered already (or by a concurrent request a moment ago): handled as the existing account.
      .onConflict((oc) => oc.column('email').doNothing())
      .returning(['id', 'email', 'first_name'])
      .executeTakeFirst()
    if (created) return issueVerification(created, trx, options)
    const account = await findUserByEmail(input.email, trx)
    if (!account) return null
    if (account.email_verified_at) {
      // Its sign-in link leads back too: someone who forgot they had an account still lands on the invite.
      return () => sendMailInBackground(accountExistsMail(account.email, account.first_name, appLink('/login', fromQuery(options.next))))
    }
    return issueVerification(account, trx, options)
  })
  sendMail?.()
  return answer
}

/** A new verification link for an unverified account; silently nothing otherwise. */
export async function resendVerification(email: string, options: AfterVerification = {}, db: DbOrTx = getDb()): Promise<void> {
  const account = await findUserByEmail(email, db)
  if (!account || account.email_verified_at) return
  const sendMail = await issueVerification(account, db, options)
  sendMail()
}

export const VERIFY_ERRORS = {
  unknown: 'This verification link is not valid. Please use the latest link from your email.',
  used: 'This verification link has already been used. Sign in to continue.',
  expired: 'This verification link has expired. Sign in with your email and password to get a new one.',
} as const

export type VerifyOutcome =
  | {
      ok: true
      user: SessionUser
      session: { token: string; sessionId: string; expiresAt: Date }
      balance: number
      bonusGranted: boolean
      /** The link was opened in the browser that asked for it (so its guest runs were carried). */
      sameBrowser: boolean
    }
  | { ok: false; error: string }
  /** Opened in another browser: nothing spent; whose account it is, for the "Continue as" step. */
  | { ok: false; confirmAs: string }

/**
 * Spends a verification token: marks the email verified, grants the welcome bonus once, signs in.
 * One transaction: a failure at any step leaves the link unspent, the account as it was and no bonus.
 *
 * A link can be forwarded (decision 162): someone who signs up with their own address can send their
 * link to another person. Only the browser that asked for the link (its sign-up key, hashed with the
 * token) is signed in at once, and only its guest runs are carried (onSameBrowser). Any other
 * caller gets `confirmAs`, the account's address, and nothing happens until it confirms; even then
 * nothing of that browser moves into the account.
 */
export async function verifyEmail(
  token: string,
  options: {
    userAgent?: string | null
    /** The sign-up key of the browser presenting the link (signup-browser.server.ts), null without one. */
    browserKey?: string | null
    /** The caller has seen whose account this is and chose to continue ("Continue as <email>"). */
    confirmed?: boolean
    /** Writes that belong to a same-browser verification, in its transaction (history's carry of guest runs: decision 136). */
    onSameBrowser?: (userId: string, trx: Transaction<Database>) => Promise<void>
  } = {},
  db: DbOrTx = getDb(),
): Promise<VerifyOutcome> {
  return executeTx(db, async (trx): Promise<VerifyOutcome> => {
    const live = await peekToken(token, 'verify_email', trx)
    const presented = browserHash(options.browserKey ?? null)
    const sameBrowser = live !== null && live.browserHash !== null && live.browserHash === presented
    if (live && !sameBrowser && !options.confirmed) return { ok: false, confirmAs: live.email }
    const spent = await spendToken(token, 'verify_email', trx)
    if (!spent.ok) return { ok: false, error: VERIFY_ERRORS[spent.reason] }
    const user = await trx
      .updateTable('users')
      .set((eb) => ({ email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(new Date())), updated_at: new Date() }))
      .where('id', '=', spent.userId)
      .returning([...userColumns])
      .executeTakeFirstOrThrow()
    await retireTokens(user.id, 'verify_email', trx)
    const bonus = await grantWelcomeBonus(user.id, trx)
    if (sameBrowser) await options.onSameBrowser?.(user.id, trx)
    const session = await createSession(user.id, { userAgent: options.userAgent, db: trx })
    return { ok: true, user, session, balance: bonus.balance, bonusGranted: bonus.granted, sameBrowser }
  })
}

/** Mails a one-hour, single-use reset link when the email has an account; the caller never learns which. */
export async function requestPasswordReset(email: string, db: DbOrTx = getDb()): Promise<void> {
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
 * Spends a reset token and sets the new password. Whoever knew the old password is shut out
 * (decision 162): every session of the account ends, the caller's own included, and every API key
 * the user made is revoked (revoking is simpler and safer than listing them for the owner to judge).
 * The owner is mailed what ended, once the change is committed.
 */
export async function confirmPasswordReset(
  token: string,
  password: string,
  db: DbOrTx = getDb(),
): Promise<{ ok: true; userId: string; sessionsEnded: number; keysRevoked: number } | { ok: false; error: string }> {
  // Hash before the transaction: a slow hash never holds locks, nor leaves a token spent and the password unchanged.
  const passwordHash = await hashPassword(password)
  // One transaction: the token is spent only if the password is set, the sessions ended and the keys revoked.
  const outcome = await executeTx(db, async (trx) => {
    const spent = await spendToken(token, 'reset_password', trx)
    if (!spent.ok) return { ok: false as const, error: RESET_ERRORS[spent.reason] }
    const before = await trx.selectFrom('users').select(['email', 'first_name', 'email_verified_at']).where('id', '=', spent.userId).executeTakeFirstOrThrow()
    await trx
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
    await retireTokens(spent.userId, 'reset_password', trx)
    const sessions = await revokeAllSessions(spent.userId, trx)
    const keys = await revokeKeysMadeBy(spent.userId, 'password_reset', trx)
    if (!before.email_verified_at) {
      await retireTokens(spent.userId, 'verify_email', trx)
      await grantWelcomeBonus(spent.userId, trx)
    }
    return { ok: true as const, userId: spent.userId, user: before, sessions, keys }
  })
  if (!outcome.ok) return outcome
  sendMailInBackground(passwordChangedMail(outcome.user.email, outcome.user.first_name, { sessions: outcome.sessions, keys: outcome.keys }, appLink(DEVELOPERS_ANCHOR)))
  return { ok: true, userId: outcome.userId, sessionsEnded: outcome.sessions, keysRevoked: outcome.keys.length }
}
