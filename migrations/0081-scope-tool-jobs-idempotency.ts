import { sql, type Kysely } from 'kysely'

// An Idempotency-Key belongs to its caller (decision 081): the paying account, the environment
// (live or test) and the credential (the API key, else the signed-in user, else the visitor).
// Existing rows get the scope they were sent with, so a key keeps replaying within its own scope.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tool_jobs ADD COLUMN idempotency_scope text`.execute(db)
  await sql`
    UPDATE tool_jobs SET idempotency_scope =
      (CASE WHEN test_mode THEN 'test' ELSE 'live' END) || ':' ||
      (CASE WHEN api_key_id IS NOT NULL THEN 'key:' || api_key_id::text
            WHEN user_id IS NOT NULL THEN 'user:' || user_id::text
            ELSE 'visitor' END)
    WHERE idempotency_key IS NOT NULL
  `.execute(db)
  await sql`DROP INDEX tool_jobs_idempotency`.execute(db)
  await sql`
    CREATE UNIQUE INDEX tool_jobs_idempotency_scoped ON tool_jobs (account_id, idempotency_scope, idempotency_key)
      WHERE idempotency_key IS NOT NULL
  `.execute(db)
  await sql`ALTER TABLE tool_jobs ADD CONSTRAINT tool_jobs_idempotency_scope_set
    CHECK (idempotency_key IS NULL OR idempotency_scope IS NOT NULL)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX tool_jobs_idempotency_scoped`.execute(db)
  await sql`ALTER TABLE tool_jobs DROP COLUMN idempotency_scope`.execute(db)
  await sql`CREATE UNIQUE INDEX tool_jobs_idempotency ON tool_jobs (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`.execute(db)
}
