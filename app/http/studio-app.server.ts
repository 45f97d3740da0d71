// The studio's Express application: every middleware in its order, then Remix. server.ts starts it
// (database, workers, listening, shutdown); tests of the whole HTTP path build it with a Remix build of
// their own (tests/support/studio-server.ts), so what they prove is what runs.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import path from 'node:path'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import compression from 'compression'
import expressStaticGzip from 'express-static-gzip'
import express from 'express'
import helmet from 'helmet'
import { pinoHttp } from 'pino-http'
import type { ViteDevServer } from 'vite'
import { config } from '~/config.server'
import { apiKeyGate } from '~/features/api-keys/gate.server'
import { API_KEY_HEADER } from '~/features/api-keys/presented-key'
import { answerMetrics, httpMetrics, remixRouteLabeler, SERVER_ROUTES } from '~/features/observability/http-metrics.server'
import { isRemoveBgPath, limitSmallBodies, requestBodyLimit } from '~/features/security/body-limit.server'
import { passClientAddress } from '~/features/security/client-address.server'
import { continueOnlyWithinLimits, keepConnectionForTheAnswer } from '~/features/security/early-answer.server'
import { isCrossSiteWrite } from '~/features/security/same-origin.server'
import { CROSS_SITE_REFUSED, refuseDataQueries, refuseForeignPageWrites, refuseNonFormPageWrites, refuseUnservedMethods } from './request-guards.server'
import { logger } from '~/utils/logger.server'

export interface StudioAppOptions {
  /** The Remix build, or (development) a function that loads it afresh. */
  build: ServerBuild | (() => Promise<ServerBuild>)
  production: boolean
  /** Development: Vite serves the browser's modules. Else the built client files are served from buildDir. */
  viteDevServer?: ViteDevServer
  buildDir: string
  /**
   * Which build answers a request (decision 162): the console hands it in (features/console/hidden-routes.server.ts,
   * `consoleGate`), as it stands above the HTTP kit (decision 170).
   */
  consoleGate: ConsoleGate
}

export interface ConsoleGate {
  /** The build without the console's routes. */
  publicBuild(build: StudioAppOptions['build']): StudioAppOptions['build']
  /** Whether this request is an operator's and concerns the console: it is answered by the whole build. */
  answersWithConsole(url: URL, headers: { cookie?: string; authorization?: string }): Promise<boolean>
}

export function createStudioApp(options: StudioAppOptions): express.Express {
  const { build, production, viteDevServer, consoleGate } = options
  const cfg = config()

  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', cfg.trustProxy)

  // First: an answer given before a body has all arrived reaches the client (decision 161).
  app.use(keepConnectionForTheAnswer)
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

  // API keys (Authorization: Bearer or X-Api-Key): refused here when malformed, revoked or unknown; rate-limited per key; every answer to
  // a key carries RateLimit-* and the key's environment.
  app.use('/api', (req, res, next) => {
    // The remove.bg-compatible endpoint runs the same gate itself, to refuse in remove.bg's words.
    if (isRemoveBgPath(req.baseUrl + req.path)) return next()
    apiKeyGate(req.get('authorization'), req.get(API_KEY_HEADER))
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
    const client = path.resolve(options.buildDir, 'client')
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
  const withoutConsole = remixHandler(consoleGate.publicBuild(build))
  app.all('*', (req, res, next) => {
    // The URL as Remix builds it (its host plays no part here, so a malformed Host cannot throw).
    consoleGate.answersWithConsole(new URL(`http://localhost${req.originalUrl}`), { cookie: req.get('cookie'), authorization: req.get('authorization') })
      .then((operator) => (operator ? withConsole : withoutConsole)(req, res, next))
      .catch(next)
  })

  return app
}

/** Listens with the studio's `Expect: 100-continue` rule: no 100 for a body the path will not take. */
export function listenStudio(app: express.Express, port: number, host: string, onListening?: () => void): Server {
  const server = app.listen(port, host, onListening)
  continueOnlyWithinLimits(server, requestBodyLimit)
  return server
}
