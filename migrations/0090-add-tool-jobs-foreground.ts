import { sql, type Kysely } from 'kysely'

// Where the subject is in a remover's result, kept with the job: the remove.bg-compatible endpoint
// answers it (X-Foreground-* and foreground_* in JSON) whichever worker ran the job.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN foreground jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN foreground`.execute(db)
}
