import { sql, type Kysely } from 'kysely'

// What a stored result's run reported beyond its bytes (faces found, the restorer's engine), so an
// idempotent retry can be answered with the same headers as the original run.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE results ADD COLUMN run_details jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE results DROP COLUMN run_details`.execute(db)
}
