// The one job queue of the process: pg-boss on the app's own database, its tables in a schema of
// their own. On PGlite it runs through pg-boss's PGlite adapter on the same instance (our Kysely
// dialect holds PGlite's transaction lock while a transaction is open, so the two never interleave);
// on PostgreSQL it opens a small pool of its own to the same database.
import { fromPglite, PgBoss } from 'pg-boss'
import { databaseHandle, type DatabaseHandle } from '~/db/db.server'
import { logger } from '~/utils/logger.server'
import { databaseSingleton, existingSingleton } from '~/utils/singleton.server'

// Supervision (expired jobs, lapsed heartbeats) every 10 s instead of pg-boss's 60: a job whose
// worker died goes back to the queue within about two heartbeats. The instance registry (the workers
// /healthz lists) is refreshed every 10 s too.
const SUPERVISION = { superviseIntervalSeconds: 10, monitorIntervalSeconds: 10, instanceHeartbeatSeconds: 10 }

function createBoss(handle: DatabaseHandle): PgBoss {
  if (handle.kind === 'pglite') {
    if (!handle.pglite) throw new Error('pg-boss on PGlite needs the PGlite instance')
    return new PgBoss({ db: fromPglite(handle.pglite), backend: 'pglite', schema: handle.bossSchema, ...SUPERVISION })
  }
  if (!handle.connectionString) throw new Error('pg-boss on PostgreSQL needs the connection string')
  return new PgBoss({ connectionString: handle.connectionString, schema: handle.bossSchema, max: 4, ...SUPERVISION })
}

/** pg-boss, started (its schema created or migrated) on first use. */
export function getBoss(): Promise<PgBoss> {
  return databaseSingleton('pg-boss', async () => {
    const boss = createBoss(databaseHandle())
    boss.on('error', (error) => logger.error({ err: error }, 'pg-boss error'))
    await boss.start()
    return boss
  })
}

/** Stops pg-boss if this process started it (graceful: workers finish or hand back their jobs). */
export async function stopBoss(options: { timeoutMs?: number } = {}): Promise<void> {
  const started = existingSingleton<Promise<PgBoss>>('pg-boss')
  if (!started) return
  const boss = await started
  await boss.stop({ graceful: true, timeout: options.timeoutMs ?? 20_000 })
}
