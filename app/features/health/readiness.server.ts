// /readyz: whether this process should get traffic (or jobs) now. /livez only says the process
// runs; /healthz stays what it was (docs/decisions/106). Every check answers within
// READINESS_TIMEOUT_MS, so a database that stopped answering turns the answer to 503 in time for a
// load balancer or an orchestrator probing every few seconds.
import { sql } from 'kysely'
import { databaseHandle, getDb } from '~/db/db.server'
import { latestMigrationName } from '~/db/migrate.server'
import { processRole, type ProcessRole } from '~/features/jobs/roles.server'
import { jobWorkerState } from '~/features/jobs/worker.server'
import { MODELS } from '~/features/tools/models/manifest'
import { isModelInstalled } from '~/features/tools/models/registry.server'
import { storageCheck } from '~/features/jobs/storage-health.server'
import { singleton } from '~/utils/singleton.server'

/** A database query slower than this counts as unreachable (the probe's own budget is 5 s). */
export const READINESS_TIMEOUT_MS = 2_000

interface Check {
  ok: boolean
  error?: string
}

export interface Readiness {
  status: 'ok' | 'unavailable'
  checks: {
    database: Check & { kind: 'pglite' | 'postgres' }
    migrations: Check & { latest: string | null }
    models: Check & { missing: string[]; required: boolean }
    worker: Check & { role: ProcessRole; state: string }
    /** Whether results can be stored: a recent store failed for lack of space, or DATA_DIR is nearly full (docs/decisions/177). */
    storage: Check & { freeMb: number | null }
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** Shutting down: say so at once, before the listener closes, so traffic moves elsewhere. */
export function markDraining(): void {
  singleton('draining', () => ({ value: false })).value = true
}

function draining(): boolean {
  return singleton('draining', () => ({ value: false })).value
}

async function databaseCheck(): Promise<{ database: Readiness['checks']['database']; migrations: Readiness['checks']['migrations'] }> {
  const kind = databaseHandle().kind
  const latest = await latestMigrationName()
  try {
    const applied = await withTimeout(
      sql<{ name: string }>`select name from kysely_migration where name = ${latest}`.execute(getDb()),
      READINESS_TIMEOUT_MS,
      'The database',
    )
    const migrated = applied.rows.length > 0
    return {
      database: { ok: true, kind },
      migrations: migrated ? { ok: true, latest } : { ok: false, latest, error: `migration ${latest} is not applied` },
    }
  } catch (error) {
    const message = (error as Error).message
    // A missing bookkeeping table means a database that was never migrated, not an unreachable one.
    if (/kysely_migration/.test(message)) {
      return { database: { ok: true, kind }, migrations: { ok: false, latest, error: 'no migration applied' } }
    }
    return { database: { ok: false, kind, error: message }, migrations: { ok: false, latest, error: 'database unreachable' } }
  }
}

export async function readiness(): Promise<Readiness> {
  const role = processRole()
  const runsJobs = role !== 'web'
  const missing = MODELS.filter((m) => !m.optional && !isModelInstalled(m.id)).map((m) => m.id)
  const { database, migrations } = await databaseCheck()
  const workerState = runsJobs ? await jobWorkerState() : 'none (web only)'
  const storage = await storageCheck()
  const stopping = draining()
  const checks: Readiness['checks'] = {
    database,
    migrations,
    // A web-only process runs no model: its missing models are reported, not held against it.
    models: { ok: !runsJobs || missing.length === 0, missing, required: runsJobs, ...(missing.length && runsJobs ? { error: 'required models are not installed' } : {}) },
    worker: {
      ok: !stopping && (!runsJobs || workerState === 'running'),
      role,
      state: stopping ? 'draining' : workerState,
      ...(stopping ? { error: 'shutting down' } : {}),
    },
    storage,
  }
  const ok = Object.values(checks).every((check) => check.ok)
  return { status: ok ? 'ok' : 'unavailable', checks }
}
