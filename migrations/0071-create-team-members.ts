import { sql, type Kysely } from 'kysely'

// Who belongs to a team, with a role and an optional monthly credit cap (credits per UTC calendar month).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE team_members (
      team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      monthly_cap integer CHECK (monthly_cap >= 0),
      joined_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (team_id, user_id)
    )
  `.execute(db)
  await sql`CREATE INDEX team_members_user ON team_members (user_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE team_members`.execute(db)
}
