import { sql, type Kysely } from 'kysely'

// The key a run was made with, for the per-key run count shown on the dashboard.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_runs ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL`.execute(db)
  await sql`CREATE INDEX tool_runs_api_key ON tool_runs (api_key_id, created_at) WHERE api_key_id IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_runs DROP COLUMN api_key_id`.execute(db)
}
