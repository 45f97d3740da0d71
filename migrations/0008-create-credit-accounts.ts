import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE credit_accounts (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid UNIQUE REFERENCES users (id) ON DELETE CASCADE,
      visitor_id uuid UNIQUE REFERENCES visitors (id) ON DELETE CASCADE,
      balance integer NOT NULL CHECK (balance >= 0),
      lifetime_spent integer NOT NULL DEFAULT 0 CHECK (lifetime_spent >= 0),
      last_refresh_day date,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((user_id IS NULL) <> (visitor_id IS NULL))
    )
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE credit_accounts`.execute(db)
}
