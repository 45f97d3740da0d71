import { sql, type Kysely } from 'kysely'

// The team a browser session works as (null: the user's own balance).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sessions ADD COLUMN working_team_id uuid REFERENCES teams (id) ON DELETE SET NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sessions DROP COLUMN working_team_id`.execute(db)
}
