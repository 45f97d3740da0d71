import { sql, type Kysely } from 'kysely'

// Webhook endpoints belong to a credit account (a user's today, a team's later). The signing secret
// is needed in clear to sign, so it is stored encrypted (AES-256-GCM under RESULTS_KEY).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      url text NOT NULL,
      events text[] NOT NULL,
      secret_iv bytea NOT NULL,
      secret_tag bytea NOT NULL,
      secret_ciphertext bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE webhook_endpoints`.execute(db)
}
