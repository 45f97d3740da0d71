import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE credit_transactions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('purchase', 'consume', 'adjustment', 'bonus')),
      delta integer NOT NULL,
      balance_after integer NOT NULL CHECK (balance_after >= 0),
      description text,
      tool_slug text,
      idempotency_key text,
      reverses_id bigint UNIQUE REFERENCES credit_transactions (id),
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`
    CREATE INDEX credit_transactions_account_time ON credit_transactions (account_id, id DESC)
  `.execute(db)
  await sql`
    CREATE UNIQUE INDEX credit_transactions_idempotency
      ON credit_transactions (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE credit_transactions`.execute(db)
}
