// A synchronous run taken where it was admitted (docs/decisions/124), on PGlite and PostgreSQL: with a
// slot free it runs in the admitting process (pg-boss hands it over in the admission's transaction,
// no worker fetches it) and its pg-boss job completes; with no slot free it goes through the queue and
// a worker of the process takes it once a slot is given back. Either way it is charged once.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as convert } from '~/routes/api.svg2image.convert'
import { balanceOf, fileOf, fixture, fromEmptyQueueAndFreeSlot, newUser, randomIp, toolRequest, ledgerSum, type TestCaller } from '../../../tests/support/tools'
import { readResult, routeArgs } from '../../../tests/support/requests'
import { toolCost } from '~/features/tools/costs.server'
import { TOOLS } from '~/catalog/tools'
import { findJob } from './jobs.server'
import { firstProgress } from './progress'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'
import { JOB_TRACE_CHANNEL, type JobMark, type JobTraceMark } from './trace.server'
import { reserveSlotHere } from './worker.server'

const marks = new Map<string, Set<JobMark>>()
/** Each job's row as read when its run starts (the 'claimed' mark), before the runner reports anything. */
const rowsAtStart = new Map<string, ReturnType<typeof findJob>>()
const onMark = (message: unknown) => {
  const { jobId, mark } = message as JobTraceMark
  if (!marks.has(jobId)) marks.set(jobId, new Set())
  marks.get(jobId)!.add(mark)
  if (mark === 'claimed') rowsAtStart.set(jobId, findJob(jobId))
}

beforeAll(async () => {
  // One slot: the second test holds it to show the queued path.
  process.env.WORKER_CONCURRENCY = '1'
  // Every run through the queue: a short run would otherwise run inline, with no pg-boss job (decision 176).
  process.env.INLINE_RUN_MS = '0'
  resetConfigForTests()
  subscribe(JOB_TRACE_CHANNEL, onMark)
  // pg-boss and this process's worker started before the first test: slow on a busy machine.
  await fromEmptyQueueAndFreeSlot()
}, 180_000)

afterAll(async () => {
  unsubscribe(JOB_TRACE_CHANNEL, onMark)
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WORKER_CONCURRENCY
  delete process.env.INLINE_RUN_MS
  resetConfigForTests()
})

const icon = () => fileOf(fixture('svg/tango-internet-web-browser.svg'), 'icon.svg', 'image/svg+xml')

/** The icon through POST /api/svg2image/convert/, as the user. */
async function run(user: TestCaller) {
  const request = toolRequest('/api/svg2image/convert/', { svg: icon(), format: 'png', scale: '1' }, { 'x-facet-client-ip': randomIp(), ...user.headers })
  return readResult(await convert(routeArgs(request)))
}

async function onlyJobOf(accountId: string) {
  const rows = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', accountId).execute()
  expect(rows).toHaveLength(1)
  return (await findJob(rows[0]!.id))!
}

async function ledgerMatches(accountId: string): Promise<void> {
  const { balance, sum } = await ledgerSum(accountId)
  expect(sum).toBe(balance)
}

describe('a synchronous run where it was admitted', () => {
  it('runs in the admitting process when a slot is free: no worker fetches it, its pg-boss job completes, charged once', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    const answer = await run(user)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    const job = await onlyJobOf(user.accountId)
    expect(job.status).toBe('succeeded')
    expect(job.attempts).toBe(1)
    // Taken in the admitting transaction: claimed and run, never fetched by a worker.
    expect(marks.get(job.id)?.has('claimed')).toBe(true)
    expect(marks.get(job.id)?.has('fetched')).toBe(false)
    // The row's start in the admitting transaction wrote the run's first progress: the run writes none of its own.
    const first = firstProgress(TOOLS['svg-converter'].steps)
    expect(await rowsAtStart.get(job.id)).toMatchObject({ status: 'running', stage: first.message, progress: first.percent })
    // The balance the answer names is the one the charge left (not read again after the run).
    expect(answer.headers.get('x-credits-remaining')).toBe(String(before - toolCost('svg-converter')))
    const boss = await toolQueues()
    await vi.waitFor(async () => expect((await boss.getJobById(TOOL_JOB_QUEUE, job.id))?.state).toBe('completed'), { timeout: 60_000, interval: 50 })
    expect(await balanceOf(user)).toBe(before - toolCost('svg-converter'))
    await ledgerMatches(user.accountId)
  }, 180_000)

  it('goes through the queue when no slot is free, and a worker of the process runs it once the slot is back', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    // The process's one slot (free once the last run has completed its pg-boss job), held as a run taken here would hold it.
    const held = await vi.waitFor(
      async () => {
        const slot = await reserveSlotHere()
        expect(slot).not.toBeNull()
        return slot!
      },
      { timeout: 60_000, interval: 50 },
    )
    const answering = run(user)
    // Admitted and queued; the worker that fetched it waits for the slot.
    await vi.waitFor(async () => expect((await onlyJobOf(user.accountId)).status).toBe('queued'), { timeout: 30_000, interval: 50 })
    // Nothing else can take a slot meanwhile.
    expect(await reserveSlotHere()).toBeNull()
    held.release()
    const answer = await answering
    expect(answer.status).toBe(200)
    const job = await onlyJobOf(user.accountId)
    expect(job.status).toBe('succeeded')
    expect(marks.get(job.id)?.has('fetched')).toBe(true)
    expect(await balanceOf(user)).toBe(before - toolCost('svg-converter'))
    await ledgerMatches(user.accountId)
  }, 180_000)
})
