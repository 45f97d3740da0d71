import { sql, type Kysely } from 'kysely'

// API keys: only the SHA-256 of the key is stored, beside the visible prefix the owner recognises it by.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      environment text NOT NULL CHECK (environment IN ('live', 'test')),
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )
  `.execute(db)
  await sql`CREATE INDEX api_keys_user ON api_keys (user_id, created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE api_keys`.execute(db)
}
