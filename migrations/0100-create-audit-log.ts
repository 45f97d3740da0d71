import { sql, type Kysely } from 'kysely'

// The audit log: who (a user id, or 'cli' for the operator channel) did what to which account, team
// or key, and when. Append-only: the code only inserts, and a trigger refuses UPDATE, DELETE and
// TRUNCATE, so not even a stray query (or a cascade) can rewrite history. No foreign keys for that
// reason: a deleted user's rows must stay as they were (the email is a snapshot), and ON DELETE SET
// NULL would be an UPDATE the trigger refuses.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      actor text NOT NULL CHECK (char_length(actor) BETWEEN 1 AND 64),
      actor_email text,
      action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 64),
      target_type text NOT NULL CHECK (char_length(target_type) BETWEEN 1 AND 32),
      target_id text NOT NULL CHECK (char_length(target_id) BETWEEN 1 AND 200),
      details jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db)
  await sql`CREATE INDEX audit_log_created ON audit_log (created_at DESC, id DESC)`.execute(db)
  await sql`CREATE INDEX audit_log_action ON audit_log (action, created_at DESC)`.execute(db)
  await sql`CREATE INDEX audit_log_actor ON audit_log (actor, created_at DESC)`.execute(db)
  await sql`CREATE INDEX audit_log_target ON audit_log (target_type, target_id, created_at DESC)`.execute(db)
  await sql`
    CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$
  `.execute(db)
  await sql`
    CREATE TRIGGER audit_log_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()
  `.execute(db)
  await sql`
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE audit_log`.execute(db)
  await sql`DROP FUNCTION audit_log_append_only()`.execute(db)
}
