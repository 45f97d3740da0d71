// The soak's arithmetic and its end-of-run checks (bench/soak.ts), kept apart and pure (the checks
// take any Kysely database) so a unit test covers them: latency figures, memory slopes, how an answer
// counts, and the ledger queries.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../app/db/schema'
import { percentile } from './support'

export { percentile }

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

/** count, p50, p99 and max of some durations (ms); null figures when there are none. */
export function latencyFigures(ms: number[]) {
  if (ms.length === 0) return { count: 0, p50Ms: null, p99Ms: null, maxMs: null }
  return { count: ms.length, p50Ms: Math.round(percentile(ms, 50)), p99Ms: Math.round(percentile(ms, 99)), maxMs: Math.round(Math.max(...ms)) }
}

export interface Slope {
  /** Least-squares slope, in y units per minute. */
  perMinute: number
  /** Its standard error (same units): the noise the samples allow. */
  standardError: number
  /** The residuals' standard deviation (y units): how much the samples wander about the line. */
  residualSd: number
  samples: number
}

/** The least-squares line through (minute, value) points: its slope, the slope's standard error, the residual spread. */
export function slopeOf(points: Array<{ minute: number; value: number }>): Slope | null {
  const n = points.length
  if (n < 3) return null
  const mx = points.reduce((s, p) => s + p.minute, 0) / n
  const my = points.reduce((s, p) => s + p.value, 0) / n
  const sxx = points.reduce((s, p) => s + (p.minute - mx) ** 2, 0)
  if (sxx === 0) return null
  const slope = points.reduce((s, p) => s + (p.minute - mx) * (p.value - my), 0) / sxx
  const residuals = points.map((p) => p.value - (my + slope * (p.minute - mx)))
  const sse = residuals.reduce((s, r) => s + r * r, 0)
  const residualSd = Math.sqrt(sse / (n - 2))
  return { perMinute: slope, standardError: residualSd / Math.sqrt(sxx), residualSd, samples: n }
}

export interface MemorySample {
  /** Seconds since the load started. */
  at: number
  /** Resident memory, MB. */
  mb: number
}

export interface MemoryTrend {
  startMb: number
  afterWarmUpMb: number
  endMb: number
  peakMb: number
  /** MB per minute over everything after the warm-up. */
  slopeAfterWarmUpMbPerMin: number | null
  /** MB per minute over the second half of the load, ± its standard error. */
  slopeSecondHalfMbPerMin: number | null
  slopeSecondHalfStandardErrorMbPerMin: number | null
  /** What the second half's slope would add over that half, MB. */
  secondHalfGrowthMb: number | null
  /** The samples' own spread about the line (MB): the noise. */
  secondHalfNoiseMb: number | null
  /** Rises of more than STEP_MB from one sample to the next after the warm-up: when (s) and how much (MB). */
  steps: Array<{ at: number; mb: number }>
  /** The second half's growth with those steps taken out (MB): what rises between them. */
  secondHalfGrowthBetweenStepsMb: number | null
  /**
   * The lowest sample of each whole minute after the warm-up (MB): a heap's value after its collections, a
   * process's memory between its photos. A leak raises these; a breathing process moves only above them.
   */
  floorsMb: number[]
  verdict: 'no growth' | 'steps only' | 'growth' | 'too few samples'
}

/** Growth over the second half below this is an allocator's or a page's step, not a trend (MB). */
export const GROWTH_FLOOR_MB = 1

/**
 * A rise between two samples (5 s apart) larger than this is a step: a model's session made on its
 * first use in the process, or the allocator keeping the buffers of the largest image seen so far.
 * Flat between steps is no leak; a leak rises between them, or steps again and again.
 */
export const STEP_MB = 16

/** At most this many steps in the second half still read as first uses, not as a leak in big pieces. */
export const MAX_STEPS_IN_SECOND_HALF = 3

/** What a slope adds over the half (MB) and whether that is growth: a rise past its noise and past GROWTH_FLOOR_MB. */
function growthOf(slope: Slope | null, halfMinutes: number): { growth: number | null; grows: boolean | null } {
  if (!slope) return { growth: null, grows: null }
  const growth = slope.perMinute * halfMinutes
  // A significant fall is not growth: only a rise past its noise is.
  return { growth, grows: !(slope.perMinute <= 2 * slope.standardError || growth < GROWTH_FLOOR_MB) }
}

/** Where a process's memory rose by more than STEP_MB from one sample to the next, and the runs of samples between. */
function splitAtSteps(samples: MemorySample[]): { steps: MemorySample[]; segments: MemorySample[][] } {
  const steps: MemorySample[] = []
  const segments: MemorySample[][] = []
  samples.forEach((sample, i) => {
    const rise = i > 0 ? sample.mb - samples[i - 1]!.mb : 0
    if (i === 0 || rise > STEP_MB) {
      if (i > 0) steps.push({ at: sample.at, mb: rise })
      segments.push([])
    }
    segments[segments.length - 1]!.push(sample)
  })
  return { steps, segments }
}

/**
 * The slope shared by several runs of samples, each about its own level (a pooled within-segment
 * least-squares line): what memory does between steps, whatever the steps' sizes.
 */
export function pooledSlopeOf(segments: MemorySample[][]): Slope | null {
  const used = segments.filter((segment) => segment.length >= 2)
  const n = used.reduce((sum, segment) => sum + segment.length, 0)
  const freedom = n - used.length - 1
  if (used.length === 0 || freedom < 1) return null
  // Each segment about its own means: the steps between segments take no part in the slope.
  const centred = used.map((segment) => {
    const mx = segment.reduce((sum, s) => sum + s.at / 60, 0) / segment.length
    const my = segment.reduce((sum, s) => sum + s.mb, 0) / segment.length
    return segment.map((s) => ({ x: s.at / 60 - mx, y: s.mb - my }))
  })
  let sxx = 0
  let sxy = 0
  for (const { x, y } of centred.flat()) {
    sxx += x * x
    sxy += x * y
  }
  if (sxx === 0) return null
  const slope = sxy / sxx
  const sse = centred.flat().reduce((sum, { x, y }) => sum + (y - slope * x) ** 2, 0)
  const residualSd = Math.sqrt(sse / freedom)
  return { perMinute: slope, standardError: residualSd / Math.sqrt(sxx), residualSd, samples: n }
}

/** The lowest sample in each whole minute from `from` to `to` (seconds); a minute without a sample is left out. */
function floorsOf(samples: MemorySample[], from: number, to: number): number[] {
  const floors: number[] = []
  for (let start = from; start + 60 <= to; start += 60) {
    const minute = samples.filter((s) => s.at >= start && s.at < start + 60)
    if (minute.length > 0) floors.push(round(Math.min(...minute.map((s) => s.mb))))
  }
  return floors
}

/**
 * A process's memory over the soak. "no growth" only when the second half's slope is within noise:
 * its 95 % interval (± 2 standard errors, from the samples' own spread about the line) reaches zero or
 * below, or all it adds over the half is under GROWTH_FLOOR_MB.
 */
export function memoryTrend(samples: MemorySample[], warmUpEndsAt: number, loadEndsAt: number): MemoryTrend {
  const first = samples[0]
  const last = samples[samples.length - 1]
  const afterWarmUp = samples.filter((s) => s.at >= warmUpEndsAt && s.at <= loadEndsAt)
  const halfway = warmUpEndsAt + (loadEndsAt - warmUpEndsAt) / 2
  const secondHalf = afterWarmUp.filter((s) => s.at >= halfway)
  const whole = slopeOf(afterWarmUp.map((s) => ({ minute: s.at / 60, value: s.mb })))
  const halfMinutes = (loadEndsAt - halfway) / 60
  const half = slopeOf(secondHalf.map((s) => ({ minute: s.at / 60, value: s.mb })))
  const { growth, grows: rises } = growthOf(half, halfMinutes)
  const { steps, segments } = splitAtSteps(afterWarmUp)
  const between = growthOf(pooledSlopeOf(segments.map((segment) => segment.filter((s) => s.at >= halfway))), halfMinutes)
  const stepsInSecondHalf = steps.filter((step) => step.at >= halfway).length
  let verdict: MemoryTrend['verdict'] = 'too few samples'
  if (rises !== null) {
    if (!rises) verdict = 'no growth'
    else verdict = between.grows === false && stepsInSecondHalf <= MAX_STEPS_IN_SECOND_HALF ? 'steps only' : 'growth'
  }
  return {
    startMb: first ? round(first.mb) : 0,
    afterWarmUpMb: afterWarmUp[0] ? round(afterWarmUp[0].mb) : 0,
    endMb: last ? round(last.mb) : 0,
    peakMb: round(Math.max(0, ...samples.map((s) => s.mb))),
    slopeAfterWarmUpMbPerMin: whole ? round(whole.perMinute, 2) : null,
    slopeSecondHalfMbPerMin: half ? round(half.perMinute, 2) : null,
    slopeSecondHalfStandardErrorMbPerMin: half ? round(half.standardError, 2) : null,
    secondHalfGrowthMb: growth === null ? null : round(growth),
    secondHalfNoiseMb: half ? round(half.residualSd) : null,
    steps: steps.map((step) => ({ at: round(step.at), mb: round(step.mb) })),
    secondHalfGrowthBetweenStepsMb: between.growth === null ? null : round(between.growth),
    floorsMb: floorsOf(afterWarmUp, warmUpEndsAt, loadEndsAt),
    verdict,
  }
}

export type Caller = 'key' | 'visitor'

/**
 * How an answer counts. Delivered: a result. Refused: an answer the studio owes under this load and
 * that costs nothing (a visitor's daily credits spent: 402; a tool that needs sign-in, the SVG
 * converter, asked by a visitor: 401; an account's share of the queue, or a
 * key's rate: 429; the whole queue full: 503 with Retry-After, before any job). Anything else is an
 * error, a run stopped at its time limit (503 naming its job, refunded) included.
 */
export function classifyAnswer(
  caller: Caller,
  status: number,
  retryAfter: string | null,
  signInRequired = false,
  /** The answer names a job (X-Facet-Job-Id): the run was admitted, so a 503 is its time limit, not a full queue. */
  admitted = false,
): { kind: 'delivered' } | { kind: 'refused'; why: string } | { kind: 'error' } {
  if (status === 200 || status === 202) return { kind: 'delivered' }
  if (status === 402 && caller === 'visitor') return { kind: 'refused', why: 'visitor out of credits (402)' }
  if (status === 401 && caller === 'visitor' && signInRequired) return { kind: 'refused', why: 'visitor: the tool needs sign-in (401)' }
  if (status === 429) return { kind: 'refused', why: 'busy: account share or key rate (429)' }
  if (status === 503 && retryAfter !== null && !admitted) return { kind: 'refused', why: 'queue full (503)' }
  return { kind: 'error' }
}

/** Accounts whose balance is not the sum of their ledger rows. */
export async function balancesOffTheirLedger(db: Kysely<Database>) {
  return db
    .selectFrom('credit_accounts as a')
    .leftJoin('credit_transactions as t', 't.account_id', 'a.id')
    .select(['a.id', 'a.balance', sql<number>`coalesce(sum(t.delta), 0)::int`.as('ledger')])
    .groupBy(['a.id', 'a.balance'])
    .having(sql<boolean>`a.balance <> coalesce(sum(t.delta), 0)`)
    .execute()
}

/**
 * Each ended job with its charges and refunds in the ledger (a run's charge carries `job:<id>`; its
 * refund reverses that charge). Test-key jobs are never charged and are left out.
 */
export async function jobCharges(db: Kysely<Database>) {
  return db
    .selectFrom('tool_jobs as j')
    .leftJoin('credit_transactions as c', (join) => join.on('c.idempotency_key', '=', sql<string>`'job:' || j.id::text`).on('c.delta', '<', 0))
    .leftJoin('credit_transactions as r', 'r.reverses_id', 'c.id')
    .where('j.test_mode', '=', false)
    .select([
      'j.id',
      'j.status',
      sql<number>`count(distinct c.id)::int`.as('charges'),
      sql<number>`count(distinct r.id)::int`.as('refunds'),
    ])
    .groupBy(['j.id', 'j.status'])
    .execute()
}

export interface LedgerCheck {
  accounts: number
  balancesOffLedger: Array<{ id: string; balance: number; ledger: number }>
  delivered: number
  deliveredNotChargedOnce: string[]
  failed: number
  failedLeftCharged: string[]
  leftQueuedOrRunning: number
  ok: boolean
}

/** The end-of-soak checks: every balance equals its ledger, every delivered job charged once, no failed run charged, nothing left waiting. */
export async function checkLedger(db: Kysely<Database>): Promise<LedgerCheck> {
  const off = await balancesOffTheirLedger(db)
  const { accounts } = await db.selectFrom('credit_accounts').select(sql<number>`count(*)::int`.as('accounts')).executeTakeFirstOrThrow()
  const jobs = await jobCharges(db)
  const delivered = jobs.filter((j) => j.status === 'succeeded')
  const failed = jobs.filter((j) => j.status === 'failed')
  const deliveredNotChargedOnce = delivered.filter((j) => j.charges !== 1 || j.refunds !== 0).map((j) => j.id)
  const failedLeftCharged = failed.filter((j) => j.charges !== j.refunds).map((j) => j.id)
  const leftQueuedOrRunning = jobs.filter((j) => j.status === 'queued' || j.status === 'running').length
  return {
    accounts,
    balancesOffLedger: off,
    delivered: delivered.length,
    deliveredNotChargedOnce,
    failed: failed.length,
    failedLeftCharged,
    leftQueuedOrRunning,
    ok: off.length === 0 && deliveredNotChargedOnce.length === 0 && failedLeftCharged.length === 0 && leftQueuedOrRunning === 0,
  }
}
