import { sql, type Kysely } from 'kysely'

// The key a job was sent with: its tool_runs row carries it even when nothing was charged (test keys).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN api_key_id`.execute(db)
}
