import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE results (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      owner_account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      content_type text NOT NULL,
      filename text NOT NULL,
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      ciphertext bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )
  `.execute(db)
  await sql`
    CREATE INDEX results_expiry ON results (expires_at)
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE results`.execute(db)
}
