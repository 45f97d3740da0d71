// Rate limits shared by every instance: with PostgreSQL the counters live in the database
// (rate-limiter-flexible's PostgreSQL store); PGlite serves one process, so memory is shared enough.
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import { config } from '~/config.server'
import { databaseHandle } from '~/db/db.server'
import { singleton } from '~/utils/singleton.server'
import { CLIENT_ADDRESS_HEADER } from './client-address.server'

export interface RateLimitRule {
  /** A short name, unique per limiter: it prefixes every key. */
  name: string
  points: number
  durationSeconds: number
}

export type RateLimitOutcome = { ok: true } | { ok: false; retryAfterSeconds: number }

const TABLE = 'rate_limits'

// The store creates its own table; creating it once, before any other limiter, avoids racing DDL.
function postgresTableReady(): Promise<void> {
  return singleton('rate-limit-table', () => {
    const { pool } = databaseHandle()
    return new Promise<void>((resolve, reject) => {
      new RateLimiterPostgres(
        { storeClient: pool, storeType: 'pool', tableName: TABLE, keyPrefix: 'bootstrap', points: 1, duration: 1 },
        (err?: Error) => (err ? reject(err) : resolve()),
      )
    })
  })
}

// One limiter per rule as configured: a budget read from settings (SIGN_UPS_PER_ADDRESS) that changes gets a
// limiter with the new points, counting under the same prefix.
async function limiterFor(rule: RateLimitRule): Promise<RateLimiterAbstract> {
  return singleton(`rate-limit:${rule.name}:${rule.points}/${rule.durationSeconds}`, async () => {
    const handle = databaseHandle()
    const options = { keyPrefix: rule.name, points: rule.points, duration: rule.durationSeconds }
    if (handle.kind !== 'postgres') return new RateLimiterMemory(options)
    await postgresTableReady()
    return new RateLimiterPostgres({
      ...options,
      storeClient: handle.pool,
      storeType: 'pool',
      tableName: TABLE,
      tableCreated: true,
      clearExpiredByTimeout: false,
    })
  })
}

/** Spends one point of `rule` for `key`; says when to retry once the points are used up. */
export async function consumeRateLimit(rule: RateLimitRule, key: string, points = 1): Promise<RateLimitOutcome> {
  if (!config().RATE_LIMITS) return { ok: true }
  const limiter = await limiterFor(rule)
  try {
    await limiter.consume(key, points)
    return { ok: true }
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) }
    }
    throw error
  }
}

export interface RateLimitState {
  ok: boolean
  limit: number
  remaining: number
  /** Seconds until the window starts afresh. */
  resetSeconds: number
}

/** Spends one point and reports the window's state, for `RateLimit-*` headers. */
export async function consumeRateLimitWithState(rule: RateLimitRule, key: string): Promise<RateLimitState> {
  if (!config().RATE_LIMITS) return { ok: true, limit: rule.points, remaining: rule.points, resetSeconds: rule.durationSeconds }
  const limiter = await limiterFor(rule)
  const state = (res: RateLimiterRes, ok: boolean): RateLimitState => ({
    ok,
    limit: rule.points,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  })
  try {
    return state(await limiter.consume(key, 1), true)
  } catch (error) {
    if (error instanceof RateLimiterRes) return state(error, false)
    throw error
  }
}

/** Gives points back, e.g. after a successful sign-in. */
export async function resetRateLimit(rule: RateLimitRule, key: string): Promise<void> {
  const limiter = await limiterFor(rule)
  await limiter.delete(key)
}

/** The client address, as Express resolved it (it honours TRUST_PROXY) and passed in a header (server.ts). */
export function clientAddress(request: Request): string {
  return request.headers.get(CLIENT_ADDRESS_HEADER) ?? 'unknown'
}

export function tooManyRequests(outcome: { retryAfterSeconds: number }, message: string): Response {
  return Response.json(
    { error: message, detail: message },
    { status: 429, headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
  )
}

/** "2026-11-25 00:00:00 UTC": when a refused client may come back, readable without converting anything. */
export function utcTimeText(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** The sentence a 429 ends with: the time its Retry-After points at. */
export function retryAtSentence(retryAfterSeconds: number, now: Date = new Date()): string {
  return `Try again after ${utcTimeText(new Date(now.getTime() + retryAfterSeconds * 1000))}.`
}
