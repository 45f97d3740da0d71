import { sql, type Kysely } from 'kysely'

// A team key: created by an owner or admin (user_id), it always charges the team.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys ADD COLUMN team_id uuid REFERENCES teams (id) ON DELETE CASCADE`.execute(db)
  await sql`CREATE INDEX api_keys_team ON api_keys (team_id, created_at) WHERE team_id IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_keys DROP COLUMN team_id`.execute(db)
}
