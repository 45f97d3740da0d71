import { sql, type Kysely } from 'kysely'

// A test key's run is never charged, and a batch item is charged only when a worker starts it:
// a job may exist without a charge (docs/decisions/055-test-keys-and-batches.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ALTER COLUMN charge_transaction_id DROP NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ALTER COLUMN charge_transaction_id SET NOT NULL`.execute(db)
}
