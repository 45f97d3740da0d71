import { sql, type Kysely } from 'kysely'

// A composed cutout's size and where its subject is, kept with the job: the remove.bg-compatible
// endpoint answers them (X-Width, X-Foreground-*, foreground_* in JSON) whichever worker ran the job.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN cutout_layout jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN cutout_layout`.execute(db)
}
