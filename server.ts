// The production and development server: Express around the Remix request handler.
import path from 'node:path'
import type { ServerBuild } from '@remix-run/node'
import { config } from './app/config.server'
import { databaseHandle, getDb } from './app/db/db.server'
import { createStudioApp, listenStudio } from './app/http/studio-app.server'
import { consoleGate } from './app/features/console/hidden-routes.server'
import { migrateToLatest } from './app/db/migrate.server'
// Features' subscriptions to each other's events, before any job runs (docs/decisions/118).
import './app/features/wiring.server'
import { markDraining } from './app/features/health/readiness.server'
import { flushTraces } from './app/features/observability/tracing.server'
import { startWebhookWorker } from './app/features/webhooks/delivery.server'
import { startOperatorChannel } from './app/features/operator/channel.server'
import { processRole } from './app/features/jobs/roles.server'
import { drainJobWorker, startJobWorker } from './app/features/jobs/worker.server'
import { logger } from './app/utils/logger.server'

const cfg = config()
const production = cfg.NODE_ENV === 'production'
const buildDir = process.env.BUILD_DIR ?? 'build'

await migrateToLatest(getDb())
logger.info({ database: databaseHandle().kind }, 'database ready')
// Operator commands (npm run credits) reach this process instead of opening the database beside it.
const operatorChannel = await startOperatorChannel(cfg.dataDir)
// web+worker (the default) runs tool jobs and webhook deliveries in this process too;
// WORKER_CONCURRENCY=0 serves only (worker processes deliver).
if (processRole() !== 'web') {
  await startJobWorker()
  await startWebhookWorker()
}

const viteDevServer = production
  ? undefined
  : await import('vite').then((vite) => vite.createServer({ server: { middlewareMode: true } }))

const build = viteDevServer
  ? () => viteDevServer.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>
  : ((await import(path.resolve(buildDir, 'server/index.js') as string)) as ServerBuild)

const app = createStudioApp({ build, production, viteDevServer, buildDir, consoleGate })

const server = listenStudio(app, cfg.PORT, cfg.HOST, () => {
  logger.info(`Facet Studio listening on http://localhost:${cfg.PORT}`)
  if (cfg.publicUrlWarning) logger.warn(cfg.publicUrlWarning)
})

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  logger.info({ signal }, 'shutting down: finishing requests in flight, draining jobs')
  // /readyz answers 503 from now on, so a load balancer moves traffic elsewhere.
  markDraining()
  const force = setTimeout(() => process.exit(1), 25_000)
  force.unref()
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  // Running jobs finish (the requests waiting for them get their answers) or go back to the queue;
  // pg-boss stops with them.
  await drainJobWorker(20_000)
  await closed
  await operatorChannel?.close()
  await viteDevServer?.close()
  await getDb().destroy()
  await flushTraces()
  logger.info('stopped')
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
