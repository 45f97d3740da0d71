// Requests refused before Remix sees them, with a 4xx and words instead of the 500 Remix would answer
// (decision 162):
// - a method the studio serves nothing with (TRACE, TRACK, CONNECT, WebDAV's...): Node's Fetch
//   Request refuses to be built with some of them, and none of them means anything here: 405;
// - a write to a page (anything outside /api) whose Origin names another host, or "null": Remix's
//   own CSRF check throws on it (a 500), with or without cookies. Cookie-carrying cross-site writes
//   are refused earlier still (security/same-origin.server.ts); this covers the cookieless rest.
import type { RequestHandler } from 'express'
import { methodNotAllowedMessage } from './errors.server'

export const SERVED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export const CROSS_SITE_REFUSED = 'Cross-site request refused.'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function isServedMethod(method: string): boolean {
  return (SERVED_METHODS as readonly string[]).includes(method.toUpperCase())
}

/**
 * A page write from another origin, as Remix's document requests judge it: the Origin's host against
 * X-Forwarded-Host (its first entry) or Host. /api is left to its own rules (token clients).
 */
export function isForeignPageWrite(input: { method: string; path: string; origin: string | undefined; host: string | undefined; forwardedHost: string | undefined }): boolean {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return false
  if (input.path === '/api' || input.path.startsWith('/api/')) return false
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
