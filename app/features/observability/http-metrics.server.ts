// HTTP metrics and the /metrics answer, for the Express server (server.ts) and a worker's own
// listener (METRICS_PORT). A request is labelled with the Remix route that answers it (its id, such
// as routes/api.jobs.$id), never its URL: ids are a fixed set, URLs are not (bounded cardinality).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { matchRoutes, type AgnosticRouteObject } from '@remix-run/router'
import type { ServerBuild } from '@remix-run/node'
import { metricsAccess, wasForwarded } from './metrics-access.server'
import { metricsText, observeHttpRequest } from './metrics.server'

/** Labels of what the server answers itself, outside Remix. */
export const SERVER_ROUTES = { metrics: 'metrics', assets: 'assets', unmatched: 'unmatched' } as const

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

type RouteTree = AgnosticRouteObject & { id: string }

function routeTree(build: ServerBuild): RouteTree[] {
  const byParent = new Map<string | undefined, ServerBuild['routes'][string][]>()
  for (const route of Object.values(build.routes)) {
    const siblings = byParent.get(route.parentId) ?? []
    siblings.push(route)
    byParent.set(route.parentId, siblings)
  }
  const children = (parentId: string | undefined): RouteTree[] =>
    (byParent.get(parentId) ?? []).map((route) =>
      route.index
        ? { id: route.id, index: true, path: route.path, caseSensitive: route.caseSensitive }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: children(route.id) },
    )
  return children(undefined)
}

/** The Remix route id that answers `pathname` (the deepest match), by the same matcher Remix uses. */
export function remixRouteLabeler(build: ServerBuild | (() => Promise<ServerBuild>)): (pathname: string) => Promise<string> {
  let tree: RouteTree[] | undefined
  return async (pathname) => {
    // A development build (Vite) can change under us: read it each time; a production one once.
    const routes = typeof build === 'function' ? routeTree(await build()) : (tree ??= routeTree(build))
    const matches = matchRoutes(routes, pathname)
    return (matches?.at(-1)?.route as RouteTree | undefined)?.id ?? SERVER_ROUTES.unmatched
  }
}

/**
 * Counts every answer by method, route and status when it finishes. `routeOf` labels what Remix
 * answers; the server's own paths are labelled before (res.locals.metricsRoute).
 */
export function httpMetrics(routeOf: (pathname: string) => Promise<string>) {
  return (req: IncomingMessage & { path?: string }, res: ServerResponse & { locals?: Record<string, unknown> }, next: () => void) => {
    const started = process.hrtime.bigint()
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : 'OTHER'
      const labelled = res.locals?.metricsRoute as string | undefined
      const pathname = req.path ?? new URL(req.url ?? '/', 'http://x').pathname
      void (labelled ? Promise.resolve(labelled) : routeOf(pathname))
        .catch(() => SERVER_ROUTES.unmatched)
        .then((route) => observeHttpRequest({ method, route, status: res.statusCode }, seconds))
    })
    next()
  }
}

/** GET /metrics: the exposition text to a loopback scraper or a holder of METRICS_TOKEN (decision 105). */
export async function answerMetrics(req: IncomingMessage, res: ServerResponse, token: string | undefined): Promise<void> {
  const access = metricsAccess(
    { remoteAddress: req.socket.remoteAddress, authorization: req.headers.authorization, forwarded: wasForwarded(req.headers) },
    token,
  )
  res.setHeader('Cache-Control', 'no-store')
  if (!access.allowed) {
    res.writeHead(access.status, { ...access.headers, 'Content-Type': 'text/plain; charset=utf-8' })
    res.end(access.status === 404 ? 'Not Found\n' : 'A bearer token (METRICS_TOKEN) is required.\n')
    return
  }
  const { body, contentType } = await metricsText()
  res.writeHead(200, { 'Content-Type': contentType })
  res.end(body)
}
