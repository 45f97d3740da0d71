// Makes one statement fail on purpose, to prove a multi-step write commits or fails as one: a
// trigger that raises for the rows the test names (and only those, so other tests are untouched).
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { DB } from '~/db/db.server'

export interface InjectedFailure {
  /** Removes the trigger again; the same write then succeeds. */
  remove(): Promise<void>
}

/**
 * Before each `event` on `table` whose row matches `condition` (SQL over NEW, written by the test
 * itself, never from input), the statement raises "injected failure".
 */
export async function failStatement(
  db: DB,
  table: string,
  event: 'INSERT' | 'UPDATE' | 'DELETE',
  condition: string,
): Promise<InjectedFailure> {
  const name = `injected_failure_${randomBytes(6).toString('hex')}`
  const row = event === 'DELETE' ? 'OLD' : 'NEW'
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
       BEGIN
         IF ${condition} THEN RAISE EXCEPTION 'injected failure (%)', TG_NAME; END IF;
         RETURN ${row};
       END $fn$`,
    )
    .execute(db)
  await sql.raw(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db)
  return {
    async remove() {
      await sql.raw(`DROP TRIGGER ${name} ON ${table}`).execute(db)
      await sql.raw(`DROP FUNCTION ${name}()`).execute(db)
    },
  }
}
