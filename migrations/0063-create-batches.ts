import { sql, type Kysely } from 'kysely'

// A batch: many files through one tool, each file a tool job of its own (tool_jobs.batch_id).
// completed_at is set once, by the outcome of the last item (docs/decisions/055-test-keys-and-batches.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE batches (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      api_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
      tool text NOT NULL,
      total integer NOT NULL CHECK (total > 0),
      status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    )
  `.execute(db)
  await sql`CREATE INDEX batches_account ON batches (account_id, created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE batches`.execute(db)
}
