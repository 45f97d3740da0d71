import { sql, type Kysely } from 'kysely'

// The browser a verification link was asked from (decision 162): a hash of the random key the sign-up
// (or the resend) left in that browser's `fs_signup` cookie. Only a link opened where that cookie is
// signs in at once and carries the browser's guest runs into the account; any other browser is shown
// whose account it is and asked to continue, and carries nothing. Null: no browser (an API client
// without cookies), or a reset token.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE user_tokens ADD COLUMN browser_hash text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE user_tokens DROP COLUMN browser_hash`.execute(db)
}
