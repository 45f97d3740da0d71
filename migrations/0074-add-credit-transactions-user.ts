import { sql, type Kysely } from 'kysely'

// The member who spent, on a team account's charges and refunds: activity and "spent this month"
// (and the monthly cap) are read from the ledger.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE credit_transactions ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE SET NULL`.execute(db)
  await sql`
    CREATE INDEX credit_transactions_member ON credit_transactions (account_id, user_id, created_at)
      WHERE user_id IS NOT NULL
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE credit_transactions DROP COLUMN user_id`.execute(db)
}
