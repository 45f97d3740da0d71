import { sql, type Kysely } from 'kysely'

// "This result is wrong" (issue 36 item 4, decision 175): one report per job, kept on the instance.
// The case (the input, the studio's output, its matte and the expected matte when the user corrected
// the cutout) and the note are each sealed under RESULTS_KEY, like the result they are about. `facts`
// is what the console lists without opening them (tool, options, model, sizes, which files there are).
// A report lives exactly as long as its result: the results sweeper deletes it at the same expiry, and
// a deleted job or account takes it with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE result_feedback (
      job_id uuid PRIMARY KEY REFERENCES tool_jobs (id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      tool text NOT NULL,
      facts jsonb NOT NULL,
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      ciphertext bytea NOT NULL,
      note_iv bytea,
      note_auth_tag bytea,
      note_ciphertext bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )
  `.execute(db)
  await sql`CREATE INDEX result_feedback_expires_at ON result_feedback (expires_at)`.execute(db)
  await sql`CREATE INDEX result_feedback_created_at ON result_feedback (created_at DESC)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE result_feedback`.execute(db)
}
