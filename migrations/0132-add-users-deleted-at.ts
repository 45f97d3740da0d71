import { sql, type Kysely } from 'kysely'

// When its owner deleted the account (decision 171). The row stays, emptied of personal data (an
// address of its own under .invalid, no names, no usable password), because the credit ledger's rows
// belong to it through its credit account and are kept for the books; null for every live account.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN deleted_at timestamptz`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE users DROP COLUMN deleted_at`.execute(db)
}
