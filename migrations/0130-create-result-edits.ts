import { sql, type Kysely } from 'kysely'

// What a correction of a delivered result needs besides the result (docs/decisions/157): the run's
// source (the upload, the model's matte, the refined matte, the unmixed colours, the options; the
// blurrer's detected boxes and radius), sealed like the result under RESULTS_KEY, and the user's
// corrections kept apart from it (the brush mask sealed; edges, part decisions and face boxes).
// `facts` is what the editor lists without opening the seal (sizes, parts, detected faces). It
// lives as long as the job's result: the results sweeper deletes it at the same expiry.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE result_edits (
      job_id uuid PRIMARY KEY REFERENCES tool_jobs (id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES credit_accounts (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('cutout', 'faces')),
      facts jsonb NOT NULL,
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      ciphertext bytea NOT NULL,
      corrections jsonb,
      mask_iv bytea,
      mask_auth_tag bytea,
      mask_ciphertext bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      corrected_at timestamptz,
      expires_at timestamptz NOT NULL
    )
  `.execute(db)
  await sql`CREATE INDEX result_edits_expires_at ON result_edits (expires_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE result_edits`.execute(db)
}
