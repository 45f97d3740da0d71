import { sql, type Kysely } from 'kysely'

// The zip entries a batch skipped (folders, hidden files), each {name, reason}: its answers list them,
// so nothing sent is left out without a word.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE batches ADD COLUMN skipped jsonb NOT NULL DEFAULT '[]'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE batches DROP COLUMN skipped`.execute(db)
}
