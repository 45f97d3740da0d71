// Helpers for tests of the account flows (used by integration tests here and by other features'
// tests that need a signed-in user). Never imported by application code.
import { randomBytes } from 'node:crypto'
import { getDb, type DB } from '~/db/db.server'
import { latestMailTo } from '~/features/mail/outbox.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { hashPassword } from './password.server'
import { createSession } from './session.server'

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(6).toString('hex')}@example.test`
}

/** A client address of its own, so one test's rate-limit budget never touches another's. */
export function uniqueAddress(): string {
  const b = randomBytes(3)
  return `10.${b[0]}.${b[1]}.${b[2]}`
}

/** The newest link mailed to `to` (after any mail still being written has landed). */
export async function linkMailedTo(to: string): Promise<URL> {
  await waitForPendingMail()
  const mail = await latestMailTo(to)
  if (!mail?.link) throw new Error(`no mail with a link was sent to ${to}`)
  return new URL(mail.link)
}

/** A verified user with a live session, made directly in the database. */
export async function createVerifiedUser(
  options: { email?: string; password?: string; first_name?: string | null; last_name?: string | null } = {},
  db: DB = getDb(),
) {
  const email = options.email ?? uniqueEmail()
  const password = options.password ?? 'correct-horse-battery'
  const user = await db
    .insertInto('users')
    .values({
      email,
      password_hash: await hashPassword(password),
      first_name: options.first_name ?? null,
      last_name: options.last_name ?? null,
      email_verified_at: new Date(),
    })
    .returning(['id', 'email', 'first_name', 'last_name'])
    .executeTakeFirstOrThrow()
  const session = await createSession(user.id, { db })
  return { user, password, token: session.token, sessionId: session.sessionId }
}
