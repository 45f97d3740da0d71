// The production and development server: Express around the Remix request handler.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import compression from 'compression'
import expressStaticGzip from 'express-static-gzip'
import express from 'express'
import helmet from 'helmet'
import { pinoHttp } from 'pino-http'
import { config } from './app/config.server'
import { databaseHandle, getDb } from './app/db/db.server'
import { migrateToLatest } from './app/db/migrate.server'
// Features' subscriptions to each other's events, before any job runs (docs/decisions/118).
import './app/features/wiring.server'
import { apiKeyGate } from './app/features/api-keys/gate.server'
import { answerMetrics, httpMetrics, remixRouteLabeler, SERVER_ROUTES } from './app/features/observability/http-metrics.server'
import { markDraining } from './app/features/health/readiness.server'
import { flushTraces } from './app/features/observability/tracing.server'
import { startWebhookWorker } from './app/features/webhooks/delivery.server'
import { startOperatorChannel } from './app/features/operator/channel.server'
import { answersWithConsole, publicBuild } from './app/features/console/hidden-routes.server'
import { limitSmallBodies } from './app/features/security/body-limit.server'
import { passClientAddress } from './app/features/security/client-address.server'
import { isCrossSiteWrite } from './app/features/security/same-origin.server'
import { CROSS_SITE_REFUSED, refuseDataQueries, refuseForeignPageWrites, refuseNonFormPageWrites, refuseUnservedMethods } from './app/http/request-guards.server'
import { processRole } from './app/features/tools/jobs/roles.server'
import { drainJobWorker, startJobWorker } from './app/features/tools/jobs/worker.server'
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

const app = express()
app.disable('x-powered-by')
app.set('trust proxy', cfg.trustProxy)

// Every answer counted by method, Remix route id and status (facet_http_requests_total and its durations).
app.use(httpMetrics(remixRouteLabeler(build)))
app.get('/metrics', (req, res, next) => {
  res.locals.metricsRoute = SERVER_ROUTES.metrics
  answerMetrics(req, res, cfg.METRICS_TOKEN).catch(next)
})

app.use(
  pinoHttp({
    logger,
    // One line per request; assets and health checks are too frequent to be worth a line.
    autoLogging: { ignore: (req) => /^\/(assets\/|healthz|livez|readyz|metrics|favicon)/.test(req.url ?? '') },
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  }),
)

app.use(compression())

// Route code only sees a Fetch Request: hand it the client address Express resolved (honouring
// TRUST_PROXY), and never one the client sent itself.
app.use(passClientAddress)
// Non-upload bodies are bounded in real bytes before any route reads them whole.
app.use(limitSmallBodies)
app.use((_req, res, next) => {
  res.locals.cspNonce = randomBytes(16).toString('base64')
  next()
})

const publicOrigin = new URL(cfg.PUBLIC_URL).origin
app.use((req, res, next) => {
  const crossSite = isCrossSiteWrite({
    method: req.method,
    origin: req.get('origin'),
    secFetchSite: req.get('sec-fetch-site'),
    hasCookies: Boolean(req.get('cookie')),
    allowedOrigins: [publicOrigin, `${req.protocol}://${req.get('host')}`],
  })
  if (!crossSite) return next()
  res.status(403).json({ error: CROSS_SITE_REFUSED, detail: CROSS_SITE_REFUSED })
})
// Methods served by nothing, cookieless page writes from another origin, page writes that are not
// forms, Remix's old ?_data requests: a 4xx, never Remix's 500.
app.use(refuseUnservedMethods)
app.use(refuseForeignPageWrites)
app.use(refuseNonFormPageWrites)
app.use(refuseDataQueries)

app.use(
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': production ? ["'self'"] : ["'self'", 'ws:'],
        'font-src': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'media-src': ["'self'", 'blob:'],
        'object-src': ["'none'"],
        'script-src': [
          "'strict-dynamic'",
          "'self'",
          (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as express.Response).locals.cspNonce}'`,
        ],
        'script-src-attr': ["'none'"],
        // React writes style attributes (slider positions, progress widths).
        'style-src': ["'self'", "'unsafe-inline'"],
        'upgrade-insecure-requests': production && cfg.secureCookies ? [] : null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // Sent only when the page really is served over https (below).
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    xFrameOptions: { action: 'deny' },
  }),
)
app.use((req, res, next) => {
  if (req.secure) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains')
  next()
})

// API keys: refused here when malformed, revoked or unknown; rate-limited per key; every answer to
// a key carries RateLimit-* and the key's environment.
app.use('/api', (req, res, next) => {
  apiKeyGate(req.get('authorization'))
    .then((gate) => {
      if (!gate) return next()
      res.set(gate.headers)
      if (gate.refusal) return void res.status(gate.refusal.status).json(gate.refusal.body)
      next()
    })
    .catch(next)
})

if (viteDevServer) {
  app.use(viteDevServer.middlewares)
} else {
  const client = path.resolve(buildDir, 'client')
  app.use('/assets', (_req, res, next) => {
    res.locals.metricsRoute = SERVER_ROUTES.assets
    next()
  })
  // Hashed file names never change content: cache them for a year. The build wrote each one compressed
  // at the highest levels too (.br, .gz: vite.config.ts); the client gets the best it accepts.
  app.use(
    '/assets',
    expressStaticGzip(path.join(client, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      serveStatic: { immutable: true, maxAge: '1y' },
    }),
  )
  app.use(express.static(client, { maxAge: '1h' }))
}

// The console's routes exist only for an operator's requests; anyone else is answered by the build
// without them, so /console is the site's 404 and the route manifest never names it (decision 162).
const remixHandler = (forBuild: typeof build) =>
  createRequestHandler({
    build: forBuild,
    mode: production ? 'production' : 'development',
    getLoadContext: (_req, res) => ({ cspNonce: res.locals.cspNonce as string }),
  })
const withConsole = remixHandler(build)
const withoutConsole = remixHandler(publicBuild(build))
app.all('*', (req, res, next) => {
  // The URL as Remix builds it (its host plays no part here, so a malformed Host cannot throw).
  answersWithConsole(new URL(`http://localhost${req.originalUrl}`), { cookie: req.get('cookie'), authorization: req.get('authorization') })
    .then((operator) => (operator ? withConsole : withoutConsole)(req, res, next))
    .catch(next)
})

const server = app.listen(cfg.PORT, cfg.HOST, () => {
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
