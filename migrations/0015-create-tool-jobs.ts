import { sql, type Kysely } from 'kysely'

// One row per tool run, from its charge to its outcome (docs/decisions/020-durable-tool-jobs.md).
// The upload waits here, encrypted like results (upload_*), until the job ends; the outcome is
// written once, by a conditional update from queued/running.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tool_jobs (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      tool text NOT NULL,
      options jsonb NOT NULL,
      original_name text NOT NULL,
      upload_iv bytea,
      upload_auth_tag bytea,
      upload_ciphertext bytea,
      input_bytes integer NOT NULL,
      input_width integer,
      input_height integer,
      notes jsonb NOT NULL DEFAULT '[]',
      idempotency_key text,
      request_fingerprint text NOT NULL,
      charge_transaction_id bigint NOT NULL REFERENCES credit_transactions (id),
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      stage text,
      attempts integer NOT NULL DEFAULT 0,
      outcome text CHECK (outcome IN ('success', 'failed', 'no_face')),
      refunded boolean NOT NULL DEFAULT false,
      result_id uuid,
      filename text,
      faces_found integer,
      gfpgan_available boolean,
      note text,
      error text,
      error_status integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      heartbeat_at timestamptz,
      finished_at timestamptz,
      CHECK ((status IN ('succeeded', 'failed')) = (outcome IS NOT NULL))
    )
  `.execute(db)
  await sql`
    CREATE UNIQUE INDEX tool_jobs_idempotency ON tool_jobs (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL
  `.execute(db)
  await sql`
    CREATE INDEX tool_jobs_unfinished ON tool_jobs (status, created_at) WHERE status IN ('queued', 'running')
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE tool_jobs`.execute(db)
}
