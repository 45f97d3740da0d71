import { sql, type Kysely } from 'kysely'

// The key a charge was made with, for the per-key spend shown on the dashboard.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE credit_transactions ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL`.execute(db)
  await sql`CREATE INDEX credit_transactions_api_key ON credit_transactions (api_key_id, created_at) WHERE api_key_id IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE credit_transactions DROP COLUMN api_key_id`.execute(db)
}
