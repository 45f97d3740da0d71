// The door of /api for API keys (server.ts runs it before any /api route): a request with
// `Authorization: Bearer <key>` or `X-Api-Key: <key>` is refused at once when the key is malformed, revoked or unknown,
// is counted against its key's rate limit, and every answer carries the RateLimit-* headers and
// the key's environment. Routes then see the caller through getAuthentication as usual.
import { config } from '~/config.server'
import { consumeRateLimitWithState, type RateLimitRule } from '~/features/security/rate-limit.server'
import { ENVIRONMENT_HEADER } from './environments'
import { authenticateApiKey } from './keys.server'
import { KEY_INVALID, KEY_MALFORMED, KEY_RATE_LIMITED, KEY_SENT_TWICE } from './messages'
import { presentedApiKey } from './presented-key'

export function apiKeyRateRule(): RateLimitRule {
  return { name: 'api-key', points: config().API_KEY_RATE_LIMIT, durationSeconds: 60 }
}

export interface GateOutcome {
  /** Headers for the answer, whatever it is. */
  headers: Record<string, string>
  /** Set when the request must be answered here and not reach a route. */
  refusal: { status: number; body: { error: string; detail: string } } | null
}

function refusal(status: number, message: string) {
  return { status, body: { error: message, detail: message } }
}

/** Null when the request carries no key (sessions and visitors go their usual way). */
export async function apiKeyGate(authorization: string | null | undefined, apiKeyHeader?: string | null): Promise<GateOutcome | null> {
  const presented = presentedApiKey(authorization, apiKeyHeader)
  if (presented.kind === 'none') return null
  if (presented.kind === 'conflict') return { headers: { 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' }, refusal: refusal(401, KEY_SENT_TWICE) }
  const found = await authenticateApiKey(presented.key)
  if (found.kind !== 'key') {
    return {
      headers: { 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' },
      refusal: refusal(401, found.kind === 'malformed' ? KEY_MALFORMED : KEY_INVALID),
    }
  }
  const limit = await consumeRateLimitWithState(apiKeyRateRule(), found.apiKey.id)
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit.limit),
    'RateLimit-Remaining': String(limit.remaining),
    'RateLimit-Reset': String(limit.resetSeconds),
    [ENVIRONMENT_HEADER]: found.apiKey.environment,
  }
  if (limit.ok) return { headers, refusal: null }
  return { headers: { ...headers, 'Retry-After': String(limit.resetSeconds) }, refusal: refusal(429, KEY_RATE_LIMITED) }
}
