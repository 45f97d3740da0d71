import { sql, type Kysely } from 'kysely'

// A team: a name, a seat limit an operator sets, and (in 0073) one credit account in the shared ledger.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE teams (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
      seat_limit integer NOT NULL DEFAULT 5 CHECK (seat_limit >= 1),
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`CREATE INDEX teams_name ON teams (name)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE teams`.execute(db)
}
