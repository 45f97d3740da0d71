// Who may read /metrics (docs/decisions/105). The metrics name routes, tools, queue depth and credit
// volumes: nothing secret per user, but a picture of the business and its load that a public
// instance does not hand to anyone. A scraper on the same machine (or a sidecar sharing its network
// namespace) reads them without a token; anything else shows METRICS_TOKEN as a bearer token.
import { createHash, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export interface MetricsRequest {
  /** The TCP peer's address (never a forwarded one). */
  remoteAddress: string | undefined
  authorization: string | undefined
  /** True when a proxy forwarded the request (X-Forwarded-For, Forwarded, X-Real-IP present). */
  forwarded: boolean
}

export type MetricsAccess = { allowed: true } | { allowed: false; status: 401 | 404; headers: Record<string, string> }

function isLoopback(address: string | undefined): boolean {
  if (!address || !isIP(address)) return false
  const parsed = ipaddr.process(address)
  return parsed.range() === 'loopback'
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const a = createHash('sha256').update(given).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}

/**
 * Loopback peers are trusted only when no proxy forwarded the request: a reverse proxy on the same
 * machine connects from 127.0.0.1 on behalf of anyone on the internet.
 */
export function metricsAccess(request: MetricsRequest, token: string | undefined): MetricsAccess {
  if (isLoopback(request.remoteAddress) && !request.forwarded) return { allowed: true }
  // With no token configured the endpoint does not exist for the outside world.
  if (!token) return { allowed: false, status: 404, headers: {} }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')
  if (match && sameSecret(match[1]!, token)) return { allowed: true }
  return { allowed: false, status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } }
}

/** Headers that mean a proxy passed the request on. */
export function wasForwarded(headers: Record<string, string | string[] | undefined>): boolean {
  return ['x-forwarded-for', 'forwarded', 'x-real-ip'].some((name) => headers[name] !== undefined)
}
