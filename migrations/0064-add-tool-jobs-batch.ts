import { sql, type Kysely } from 'kysely'

// A job that is a batch's item: its batch and its place in it (the order the files were sent in).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN batch_id uuid REFERENCES batches (id) ON DELETE CASCADE`.execute(db)
  await sql`ALTER TABLE tool_jobs ADD COLUMN batch_position integer`.execute(db)
  await sql`CREATE INDEX tool_jobs_batch ON tool_jobs (batch_id, batch_position) WHERE batch_id IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN batch_position`.execute(db)
  await sql`ALTER TABLE tool_jobs DROP COLUMN batch_id`.execute(db)
}
