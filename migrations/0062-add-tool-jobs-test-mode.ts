import { sql, type Kysely } from 'kysely'

// A job sent with a test key: never charged, its result capped at a quarter megapixel.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN test_mode boolean NOT NULL DEFAULT false`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs DROP COLUMN test_mode`.execute(db)
}
