// The soak's pure helpers (bench/soak-figures.ts): percentiles, slopes and the growth verdict, how an
// answer counts, and the end-of-run ledger checks (PGlite in memory).
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPGliteHandle, pgliteOptions, type DatabaseHandle } from '../app/db/db.server'
import { checkLedger, classifyAnswer, latencyFigures, memoryTrend, slopeOf } from './soak-figures'

describe('latency figures', () => {
  it('gives nearest-rank p50 and p99 and the max', () => {
    const ms = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(latencyFigures(ms)).toEqual({ count: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 })
    expect(latencyFigures([])).toEqual({ count: 0, p50Ms: null, p99Ms: null, maxMs: null })
  })
})

describe('slopes and growth', () => {
  it('finds the slope of an exact line, with no noise', () => {
    const slope = slopeOf([0, 1, 2, 3].map((minute) => ({ minute, value: 100 + 4 * minute })))
    expect(slope?.perMinute).toBeCloseTo(4)
    expect(slope?.standardError).toBeCloseTo(0)
    expect(slopeOf([{ minute: 0, value: 1 }])).toBeNull()
  })

  // Every 5 s for 10 minutes, a warm-up of 60 s.
  const at = Array.from({ length: 121 }, (_, i) => i * 5)

  it('says "no growth" for a flat process that breathes', () => {
    const samples = at.map((s, i) => ({ at: s, mb: 300 + (i % 2 ? 6 : -6) }))
    const trend = memoryTrend(samples, 60, 600)
    expect(trend.verdict).toBe('no growth')
    expect(Math.abs(trend.slopeSecondHalfMbPerMin!)).toBeLessThan(1)
    expect(trend.startMb).toBe(294)
  })

  it('says "growth" for a steady leak above the noise', () => {
    const samples = at.map((s, i) => ({ at: s, mb: 300 + (s / 60) * 3 + (i % 2 ? 1 : -1) }))
    const trend = memoryTrend(samples, 60, 600)
    expect(trend.verdict).toBe('growth')
    expect(trend.slopeSecondHalfMbPerMin).toBeCloseTo(3, 0)
    expect(trend.secondHalfGrowthMb).toBeGreaterThan(10)
    // Its floor each minute rises with it: 3 MB a minute, from the minute after the warm-up to the last.
    expect(trend.floorsMb).toHaveLength(9)
    trend.floorsMb.forEach((floor, i) => i > 0 && expect(floor - trend.floorsMb[i - 1]!).toBeCloseTo(3, 0))
  })

  it('gives the floor of each minute after the warm-up: flat for a process that breathes above it', () => {
    const trend = memoryTrend(at.map((s, i) => ({ at: s, mb: 300 + (i % 3 === 0 ? 40 : 0) })), 60, 600)
    expect(trend.floorsMb).toEqual(Array(9).fill(300))
  })

  it('calls neither a fall nor a rise under a megabyte growth', () => {
    const falling = memoryTrend(at.map((s, i) => ({ at: s, mb: 300 - (s / 60) * 3 + (i % 2 ? 1 : -1) })), 60, 600)
    expect(falling.slopeSecondHalfMbPerMin).toBeCloseTo(-3, 0)
    expect(falling.verdict).toBe('no growth')
    const creeping = memoryTrend(at.map((s) => ({ at: s, mb: 300 + (s / 60) * 0.05 })), 60, 600)
    expect(creeping.secondHalfGrowthMb).toBeLessThan(1)
    expect(creeping.verdict).toBe('no growth')
  })

  it('says "steps only" for a process flat between a few first uses (a worker of the quiet soak: models made late)', () => {
    const stepAt = (s: number) => (s >= 180 ? 186 : 0) + (s >= 480 ? 82 : 0) + (s >= 540 ? 19 : 0)
    const trend = memoryTrend(at.map((s, i) => ({ at: s, mb: 213 + stepAt(s) + (i % 2 ? 0.3 : -0.3) })), 60, 600)
    expect(trend.verdict).toBe('steps only')
    expect(trend.steps.map((step) => step.at)).toEqual([180, 480, 540])
    // Each step as the two samples around it see it: within the samples' own breathing (±0.3 MB each).
    trend.steps.forEach((step, i) => expect(Math.abs(step.mb - [186, 82, 19][i]!)).toBeLessThan(1))
    expect(Math.abs(trend.secondHalfGrowthBetweenStepsMb!)).toBeLessThan(1)
  })

  it('says "growth" for a leak in big pieces (a step every 30 s) and for a rise between steps', () => {
    const pieces = memoryTrend(at.map((s) => ({ at: s, mb: 300 + Math.floor(s / 30) * 20 })), 60, 600)
    expect(pieces.verdict).toBe('growth')
    const between = memoryTrend(at.map((s) => ({ at: s, mb: 300 + (s >= 400 ? 100 : 0) + (s / 60) * 3 })), 60, 600)
    expect(between.steps).toHaveLength(1)
    expect(between.secondHalfGrowthBetweenStepsMb).toBeGreaterThan(10)
    expect(between.verdict).toBe('growth')
  })

  it('gives no verdict on too few samples', () => {
    expect(memoryTrend([{ at: 0, mb: 1 }], 60, 600).verdict).toBe('too few samples')
  })
})

describe('answers', () => {
  it('counts a visitor out of credits or without sign-in, a busy account and a full queue as refusals, the rest as errors', () => {
    expect(classifyAnswer('key', 200, null)).toEqual({ kind: 'delivered' })
    expect(classifyAnswer('visitor', 202, null)).toEqual({ kind: 'delivered' })
    expect(classifyAnswer('visitor', 402, null).kind).toBe('refused')
    expect(classifyAnswer('key', 402, null).kind).toBe('error')
    expect(classifyAnswer('visitor', 401, null, true).kind).toBe('refused')
    expect(classifyAnswer('visitor', 401, null, false).kind).toBe('error')
    expect(classifyAnswer('key', 401, null, true).kind).toBe('error')
    expect(classifyAnswer('key', 429, '3').kind).toBe('refused')
    expect(classifyAnswer('key', 503, '5').kind).toBe('refused')
    expect(classifyAnswer('key', 503, null).kind).toBe('error')
    expect(classifyAnswer('key', 503, '30', false, true).kind).toBe('error')
    expect(classifyAnswer('key', 500, null).kind).toBe('error')
  })
})

describe('the ledger checks', () => {
  // The columns the checks read, in a fresh PGlite (the full migrations take minutes on a busy
  // machine; the soak itself runs the checks on the real schema, and the type check holds them to it).
  let handle: DatabaseHandle
  beforeAll(async () => {
    handle = createPGliteHandle(new PGlite(pgliteOptions()))
    await sql`CREATE TABLE credit_accounts (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), balance integer NOT NULL)`.execute(handle.db)
    await sql`CREATE TABLE credit_transactions (id serial PRIMARY KEY, account_id uuid NOT NULL, delta integer NOT NULL, idempotency_key text, reverses_id integer)`.execute(handle.db)
    await sql`CREATE TABLE tool_jobs (id uuid PRIMARY KEY, status text NOT NULL, test_mode boolean NOT NULL DEFAULT false)`.execute(handle.db)
  }, 180_000)
  afterAll(async () => {
    await handle.db.destroy()
  })

  async function account(balance: number) {
    return (await sql<{ id: string }>`INSERT INTO credit_accounts (balance) VALUES (${balance}) RETURNING id`.execute(handle.db)).rows[0]!.id
  }
  async function entry(accountId: string, delta: number, extra: { key?: string; reverses?: number } = {}) {
    const { rows } = await sql<{ id: number }>`
      INSERT INTO credit_transactions (account_id, delta, idempotency_key, reverses_id) VALUES (${accountId}, ${delta}, ${extra.key ?? null}, ${extra.reverses ?? null}) RETURNING id`.execute(handle.db)
    return rows[0]!.id
  }
  async function job(status: 'succeeded' | 'failed' | 'queued', testMode = false) {
    const id = crypto.randomUUID()
    await sql`INSERT INTO tool_jobs (id, status, test_mode) VALUES (${id}, ${status}, ${testMode})`.execute(handle.db)
    return id
  }

  it('passes a consistent ledger and names each kind of mismatch', async () => {
    const a = await account(9)
    await entry(a, 10)
    const delivered = await job('succeeded')
    await entry(a, -1, { key: `job:${delivered}` })
    const failed = await job('failed')
    const charge = await entry(a, -1, { key: `job:${failed}` })
    await entry(a, 1, { reverses: charge })
    await job('succeeded', true) // a test key's run: never charged, not counted
    expect(await checkLedger(handle.db)).toMatchObject({ ok: true, accounts: 1, delivered: 1, failed: 1, balancesOffLedger: [] })

    // A balance moved without its row, a delivered job never charged, a failed run kept charged, a job left queued.
    const b = await account(5)
    const unpaid = await job('succeeded')
    const keptCharged = await job('failed')
    await entry(b, -1, { key: `job:${keptCharged}` })
    await job('queued')
    const check = await checkLedger(handle.db)
    expect(check.ok).toBe(false)
    expect(check.balancesOffLedger).toEqual([{ id: b, balance: 5, ledger: -1 }])
    expect(check.deliveredNotChargedOnce).toEqual([unpaid])
    expect(check.failedLeftCharged).toEqual([keptCharged])
    expect(check.leftQueuedOrRunning).toBe(1)
  })
})
