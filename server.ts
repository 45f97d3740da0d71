// The production and development server: Express around the Remix request handler.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import compression from 'compression'
import express from 'express'
import helmet from 'helmet'
import { pinoHttp } from 'pino-http'
import { config } from './app/config.server'
import { databaseHandle, getDb } from './app/db/db.server'
import { migrateToLatest } from './app/db/migrate.server'
import { isCrossSiteWrite } from './app/features/security/same-origin.server'
import { logger } from './app/utils/logger.server'

const cfg = config()
const production = cfg.NODE_ENV === 'production'
const buildDir = process.env.BUILD_DIR ?? 'build'

await migrateToLatest(getDb())
logger.info({ database: databaseHandle().kind }, 'database ready')

const viteDevServer = production
  ? undefined
  : await import('vite').then((vite) => vite.createServer({ server: { middlewareMode: true } }))

const app = express()
app.disable('x-powered-by')
app.set('trust proxy', cfg.TRUST_PROXY)

app.use(
  pinoHttp({
    logger,
    // One line per request; assets and health checks are too frequent to be worth a line.
    autoLogging: { ignore: (req) => /^\/(assets\/|healthz|favicon)/.test(req.url ?? '') },
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  }),
)

app.use(compression())

// Route code only sees a Fetch Request: hand it the client address Express resolved (honouring
// TRUST_PROXY), and never one the client sent itself.
app.use((req, res, next) => {
  req.headers['x-facet-client-ip'] = req.ip ?? req.socket.remoteAddress ?? 'unknown'
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
  res.status(403).json({ error: 'Cross-site request refused.', detail: 'Cross-site request refused.' })
})

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

if (viteDevServer) {
  app.use(viteDevServer.middlewares)
} else {
  const client = path.resolve(buildDir, 'client')
  // Hashed file names never change content: cache them for a year.
  app.use('/assets', express.static(path.join(client, 'assets'), { immutable: true, maxAge: '1y' }))
  app.use(express.static(client, { maxAge: '1h' }))
}

const build = viteDevServer
  ? () => viteDevServer.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>
  : ((await import(path.resolve(buildDir, 'server/index.js') as string)) as ServerBuild)

app.all(
  '*',
  createRequestHandler({
    build,
    mode: production ? 'production' : 'development',
    getLoadContext: (_req, res) => ({ cspNonce: res.locals.cspNonce as string }),
  }),
)

const server = app.listen(cfg.PORT, cfg.HOST, () => {
  logger.info(`Facet Studio listening on http://localhost:${cfg.PORT}`)
  if (cfg.publicUrlWarning) logger.warn(cfg.publicUrlWarning)
})

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  logger.info({ signal }, 'shutting down: finishing requests in flight')
  const force = setTimeout(() => process.exit(1), 25_000)
  force.unref()
  server.close(async () => {
    await viteDevServer?.close()
    await getDb().destroy()
    logger.info('stopped')
    process.exit(0)
  })
  server.closeIdleConnections()
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
