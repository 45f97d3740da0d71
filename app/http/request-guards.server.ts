// Requests refused before Remix sees them, with a 4xx and words instead of the 500 Remix would answer
// (decision 162):
// - a method the studio serves nothing with (TRACE, TRACK, CONNECT, WebDAV's...): Node's Fetch
//   Request refuses to be built with some of them, and none of them means anything here: 405;
// - a write to a page (anything outside /api) whose Origin names another host, or "null": Remix's
//   own CSRF check throws on it (a 500), with or without cookies. Cookie-carrying cross-site writes
//   are refused earlier still (security/same-origin.server.ts); this covers the cookieless rest;
// - a page write that is not a form: pages take POST only (405 otherwise), and their actions read the
//   body as a form, which throws without a form's media type (415);
// - a `?_data=` request, Remix's data protocol before single fetch: this studio's pages never make
//   one, and Remix answers it with a 500 for an unknown route (400).
import type { RequestHandler } from 'express'
import { MCP_PATH } from '~/catalog/mcp'
import { methodNotAllowedMessage } from './errors.server'

export const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export const CROSS_SITE_REFUSED = 'Cross-site request refused.'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What a page's form posts as (Remix forms and fetchers, with or without a file). */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']
export const PAGE_METHODS = 'GET, HEAD, POST'
export const FORM_TYPE_REFUSED = 'Send the form as application/x-www-form-urlencoded or multipart/form-data.'

/** Endpoints for programs, not pages: /api, and /mcp (JSON-RPC for agents, decision 165). They have their own rules. */
function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === MCP_PATH || path.startsWith(`${MCP_PATH}/`)
}

/** Why a write to a page cannot be a form post (null when it can, or when it is not a page write). */
export function pageWriteProblem(input: { method: string; path: string; contentType: string | undefined }): 405 | 415 | null {
  const method = input.method.toUpperCase()
  if (SAFE_METHODS.has(method) || isApiPath(input.path)) return null
  if (method !== 'POST') return 405
  const mediaType = input.contentType?.split(';')[0]?.trim().toLowerCase() ?? ''
  return FORM_TYPES.includes(mediaType) ? null : 415
}

export function isServedMethod(method: string): boolean {
  return (SERVED_METHODS as readonly string[]).includes(method.toUpperCase())
}

/**
 * A page write from another origin, as Remix's document requests judge it: the Origin's host against
 * X-Forwarded-Host (its first entry) or Host. /api is left to its own rules (token clients).
 */
export function isForeignPageWrite(input: { method: string; path: string; origin: string | undefined; host: string | undefined; forwardedHost: string | undefined }): boolean {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return false
  if (isApiPath(input.path)) return false
  if (input.origin === undefined || input.origin === '') return false
  if (input.origin === 'null') return true
  let originHost: string
  try {
    originHost = new URL(input.origin).host
  } catch {
    return true
  }
  const host = input.forwardedHost?.split(',')[0]?.trim() || input.host
  return originHost !== host
}

export const refuseUnservedMethods: RequestHandler = (req, res, next) => {
  if (isServedMethod(req.method)) return next()
  const allowed = SERVED_METHODS.join(', ')
  const message = methodNotAllowedMessage(allowed)
  res.status(405).set('Allow', allowed).json({ error: message, detail: message })
}

export const refuseNonFormPageWrites: RequestHandler = (req, res, next) => {
  const problem = pageWriteProblem({ method: req.method, path: req.path, contentType: req.get('content-type') })
  if (problem === null) return next()
  if (problem === 405) {
    const message = methodNotAllowedMessage(PAGE_METHODS)
    return void res.status(405).set('Allow', PAGE_METHODS).json({ error: message, detail: message })
  }
  res.status(415).json({ error: FORM_TYPE_REFUSED, detail: FORM_TYPE_REFUSED })
}

export const DATA_QUERY_REFUSED = 'This address does not take a _data parameter.'

export const refuseDataQueries: RequestHandler = (req, res, next) => {
  if (isApiPath(req.path) || req.query._data === undefined) return next()
  res.status(400).json({ error: DATA_QUERY_REFUSED, detail: DATA_QUERY_REFUSED })
}

export const refuseForeignPageWrites: RequestHandler = (req, res, next) => {
  const foreign = isForeignPageWrite({
    method: req.method,
    path: req.path,
    origin: req.get('origin'),
    host: req.get('host'),
    forwardedHost: req.get('x-forwarded-host'),
  })
  if (!foreign) return next()
  res.status(403).json({ error: CROSS_SITE_REFUSED, detail: CROSS_SITE_REFUSED })
}
