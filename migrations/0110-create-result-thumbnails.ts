import { sql, type Kysely } from 'kysely'

// A small picture of each stored result (history and the batch screen): made once, on its first
// request, from the decrypted result, and kept sealed like the result itself (AES-256-GCM under
// RESULTS_KEY). It lives and dies with its result: the results sweeper's delete cascades here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE result_thumbnails (
      result_id uuid PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
      content_type text NOT NULL,
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      ciphertext bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  // The history lists a caller's recent jobs newest first.
  await sql`CREATE INDEX tool_jobs_account_created ON tool_jobs (account_id, created_at DESC)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX tool_jobs_account_created`.execute(db)
  await sql`DROP TABLE result_thumbnails`.execute(db)
}
