// `npm run worker`: a worker process only (no web server). Any number of them, on any machines,
// share one PostgreSQL; each runs WORKER_CONCURRENCY jobs at once. PGlite allows one process per data
// folder, so a worker of its own needs DATABASE_URL (`npm start` already runs a worker beside the web).
import { config } from '../app/config.server'
import { getDb } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
// Features' subscriptions to each other's events, before any job runs (docs/decisions/118).
import '../app/features/wiring.server'
import { markDraining } from '../app/features/health/readiness.server'
import { flushTraces } from '../app/features/observability/tracing.server'
import { startWorkerListener } from '../app/features/health/worker-listener.server'
import { runAsWorkerOnly } from '../app/features/jobs/roles.server'
import { drainJobWorker, startJobWorker } from '../app/features/jobs/worker.server'
import { startWebhookWorker } from '../app/features/webhooks/delivery.server'
import { logger } from '../app/utils/logger.server'

export const WORKER_NEEDS_POSTGRES =
  'npm run worker needs DATABASE_URL (PostgreSQL): the embedded PGlite database allows one process per data folder, and `npm start` already runs a worker beside the web server.'

const cfg = config()
if (!cfg.DATABASE_URL) {
  console.error(WORKER_NEEDS_POSTGRES)
  process.exit(2)
}
if (cfg.workerConcurrency === 0) {
  console.error('npm run worker with WORKER_CONCURRENCY=0 would run nothing: set it to 1 or more, or leave it unset.')
  process.exit(2)
}
runAsWorkerOnly()
await migrateToLatest(getDb())
await startJobWorker()
await startWebhookWorker()
// Prometheus scrapes a worker here (it has no web server); the probes answer for its orchestrator.
const listener = cfg.METRICS_PORT
  ? await startWorkerListener({ port: cfg.METRICS_PORT, host: cfg.HOST, token: cfg.METRICS_TOKEN })
  : null
logger.info({ concurrency: cfg.workerConcurrency, pid: process.pid, metricsPort: cfg.METRICS_PORT ?? null }, 'worker ready')

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  logger.info({ signal }, 'worker draining: running jobs finish or go back to the queue')
  markDraining()
  const force = setTimeout(() => process.exit(1), DRAIN_MS + 5_000)
  force.unref()
  await drainJobWorker(DRAIN_MS)
  listener?.close()
  await getDb().destroy()
  await flushTraces()
  logger.info('worker stopped')
  process.exit(0)
}
const DRAIN_MS = 20_000
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
