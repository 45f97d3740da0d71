import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tool_runs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      tool text NOT NULL,
      account_id uuid REFERENCES credit_accounts (id) ON DELETE SET NULL,
      outcome text NOT NULL CHECK (outcome IN ('success', 'failed', 'no_face', 'rejected')),
      error text,
      duration_ms integer NOT NULL,
      model_ms integer,
      input_bytes integer,
      input_width integer,
      input_height integer,
      output_bytes integer,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`
    CREATE INDEX tool_runs_tool_time ON tool_runs (tool, created_at)
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE tool_runs`.execute(db)
}
