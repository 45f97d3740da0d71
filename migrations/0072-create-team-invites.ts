import { sql, type Kysely } from 'kysely'

// Mailed, single-use invites: only the SHA-256 of the token is kept (the token lives in the mail's link).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE team_invites (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      token_hash text NOT NULL UNIQUE,
      invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`CREATE INDEX team_invites_team ON team_invites (team_id, created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE team_invites`.execute(db)
}
