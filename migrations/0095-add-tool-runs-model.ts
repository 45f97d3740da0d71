import { sql, type Kysely } from 'kysely'

// The model that made a run's result (the background remover's `model` choice resolves per worker):
// on the job (its answer names it) and on the run (times per model).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN model text`.execute(db)
  await sql`ALTER TABLE tool_runs ADD COLUMN model text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_runs DROP COLUMN model`.execute(db)
  await sql`ALTER TABLE tool_jobs DROP COLUMN model`.execute(db)
}
