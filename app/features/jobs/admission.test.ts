// The admission rule without a database: the shares, the limits, which refusal wins, and Retry-After.
import { afterEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { AccountQueueFullError, QueueFullError } from './errors.server'
import { accountShare, poolLimits, refuseOverLimits } from './admission.server'

const SETTINGS = ['TOOL_QUEUE_LIMIT', 'JOBS_WAITING_PER_ACCOUNT', 'BATCH_QUEUE_LIMIT', 'WORKER_CONCURRENCY', 'JOBS_PER_ACCOUNT'] as const

function configure(values: Partial<Record<(typeof SETTINGS)[number], string>>): void {
  for (const name of SETTINGS) delete process.env[name]
  Object.assign(process.env, values)
  resetConfigForTests()
}

afterEach(() => configure({}))

function refusal(run: () => void): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return null
}

describe('the pools', () => {
  it('gives one account half of a queue, never less than its floor', () => {
    expect(accountShare(8, 1)).toBe(4)
    expect(accountShare(1, 1)).toBe(1)
    expect(accountShare(1000, 100)).toBe(500)
    expect(accountShare(100, 100)).toBe(100)
  })

  it('single runs: TOOL_QUEUE_LIMIT (an empty queue takes one), the account share by default or as set (never above the limit)', () => {
    configure({ TOOL_QUEUE_LIMIT: '8' })
    expect(poolLimits('single')).toEqual({ queue: 8, perAccount: 4 })
    configure({ TOOL_QUEUE_LIMIT: '0' })
    expect(poolLimits('single')).toEqual({ queue: 1, perAccount: 1 })
    configure({ TOOL_QUEUE_LIMIT: '8', JOBS_WAITING_PER_ACCOUNT: '20' })
    expect(poolLimits('single')).toEqual({ queue: 8, perAccount: 8 })
  })

  it('batch files: BATCH_QUEUE_LIMIT, half of it per account and at least a full batch; a limit under a batch is refused at start', () => {
    expect(poolLimits('batch')).toEqual({ queue: 1000, perAccount: 500 })
    configure({ BATCH_QUEUE_LIMIT: '100' })
    expect(poolLimits('batch')).toEqual({ queue: 100, perAccount: 100 })
    configure({ BATCH_QUEUE_LIMIT: '99' })
    expect(() => poolLimits('batch')).toThrow(/BATCH_QUEUE_LIMIT/)
  })
})

describe('refuseOverLimits', () => {
  it('admits up to the share and the limit exactly', () => {
    configure({ TOOL_QUEUE_LIMIT: '8' })
    expect(refusal(() => refuseOverLimits('single', { all: 7, account: 3 }, 1))).toBeNull()
  })

  it("refuses past the account's share with 429 and Retry-After, before looking at the queue", () => {
    configure({ TOOL_QUEUE_LIMIT: '8', JOBS_PER_ACCOUNT: '2' })
    const error = refusal(() => refuseOverLimits('single', { all: 8, account: 4 }, 1))
    expect(error).toBeInstanceOf(AccountQueueFullError)
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 4, headers: { 'Retry-After': '4' } })
    expect((error as Error).message).toBe(
      'You already have 4 runs waiting for a worker; one account may have at most 4 waiting. Send this again once some of them have started (in about 4 seconds).',
    )
  })

  it('refuses past the queue limit with 503 and Retry-After', () => {
    configure({ TOOL_QUEUE_LIMIT: '8', WORKER_CONCURRENCY: '2' })
    const error = refusal(() => refuseOverLimits('single', { all: 8, account: 0 }, 1))
    expect(error).toBeInstanceOf(QueueFullError)
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': '8' } })
  })

  it('counts a whole batch at once and says so', () => {
    configure({ BATCH_QUEUE_LIMIT: '200' })
    expect(refusal(() => refuseOverLimits('batch', { all: 100, account: 0 }, 100))).toBeNull()
    const error = refusal(() => refuseOverLimits('batch', { all: 100, account: 60 }, 50))
    expect(error).toMatchObject({ status: 429 })
    expect((error as Error).message).toMatch(/^You already have 60 batch files waiting for a worker and this batch adds 50; one account may have at most 100 waiting/)
    expect(refusal(() => refuseOverLimits('batch', { all: 160, account: 0 }, 50))).toMatchObject({ status: 503 })
  })
})
