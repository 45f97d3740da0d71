// pg-boss takes a live run's claim away (its supervision saw no heartbeat in time: on PGlite any
// forward step of the wall clock does it, docs/decisions/177 and 194), on PGlite and PostgreSQL. Its
// heartbeat then aborts the job's signal; the run goes on and is delivered once, charged once, and
// pg-boss's retry, handed out here meanwhile, waits for it and finds the job ended. (Before, the run
// stopped as if handed back at shutdown and started again from nothing: attempts 2, the work done twice.)
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sql } from 'kysely'
import { resetConfigForTests } from '~/config.server'
import { databaseHandle, getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { toolCost } from '~/features/tools/costs.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { action as postJob } from '~/routes/api.jobs._index'
import { logger } from '~/utils/logger.server'
import { balanceOf, fileOf, fixture, ledgerSum, newUser, type TestCaller } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { findJob } from './jobs.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'
import { CLAIM_LOST_LOG, drainJobWorker } from './worker.server'

const saved = { ...process.env }
beforeAll(() => {
  // Two slots: the retry is handed out here while the first attempt still runs in the other.
  process.env.WORKER_CONCURRENCY = '2'
  // pg-boss refreshes heartbeats every half of this: the loss is noticed within 5 s.
  process.env.JOB_HEARTBEAT_SECONDS = '10'
  resetConfigForTests()
})
/** Jobs left waiting here: deleted after, or the next file on this PostgreSQL schema would run them (and count them). */
const leftovers: string[] = []
afterAll(async () => {
  vi.restoreAllMocks()
  await stopBoss({ timeoutMs: 5_000 }).catch(() => {})
  if (leftovers.length) {
    await getDb().deleteFrom('tool_jobs').where('id', 'in', leftovers).execute()
    await sql`delete from ${sql.id(databaseHandle().bossSchema)}.job where id in (${sql.join(leftovers)})`.execute(getDb())
  }
  process.env = saved
  resetConfigForTests()
})

/** Called when the worker says pg-boss took a live run's claim away. */
const claimLost = vi.fn()
beforeAll(() => {
  const warn = logger.warn.bind(logger)
  vi.spyOn(logger, 'warn').mockImplementation(((...args: Parameters<typeof logger.warn>) => {
    if (args.includes(CLAIM_LOST_LOG as never)) claimLost()
    return warn(...args)
  }) as typeof logger.warn)
})

function photoJob(user: TestCaller) {
  const photo = fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
  return postJob(routeArgs(formRequest('/api/jobs/', { tool: 'background-remover', image: photo }, { headers: user.headers }))).then(readResult)
}

describe('a live run whose pg-boss claim is taken away', () => {
  it('goes on, and is delivered and charged once; the retry handed out meanwhile waits for it and runs nothing', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    // The real run, held at its start until the claim is gone and pg-boss's heartbeat has noticed.
    const runner = runnerFor('background-remover')
    const run = runner.run.bind(runner)
    let entered!: (signal: AbortSignal) => void
    const started = new Promise<AbortSignal>((resolve) => (entered = resolve))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const runs = vi.spyOn(runner, 'run').mockImplementation(async (args) => {
      entered(args.signal)
      await released
      return run(args)
    })
    claimLost.mockClear()
    const posted = await photoJob(user)
    expect(posted.status, JSON.stringify(posted.body)).toBe(202)
    const id = posted.body.id as string
    const runSignal = await started

    // What pg-boss's supervision does to a job whose heartbeat it did not see in time: fail the attempt,
    // to be retried. Its own heartbeat, in this process, then finds the claim gone.
    const boss = await toolQueues()
    await boss.fail(TOOL_JOB_QUEUE, id, { message: 'heartbeat not seen in time (the test)' })
    // Noticed: the run goes on (and says so), where it used to be stopped as if handed back at shutdown.
    await vi.waitFor(() => expect(claimLost.mock.calls.length > 0 || runSignal.aborted).toBe(true), { timeout: 60_000, interval: 100 })
    expect(runSignal.aborted).toBe(false)
    expect(claimLost).toHaveBeenCalledTimes(1)
    // pg-boss hands the retry out (after its retry delay) to this process's other slot, which waits for
    // the live run instead of claiming the job and running it again.
    await vi.waitFor(
      async () => expect(await boss.getJobById(TOOL_JOB_QUEUE, id)).toMatchObject({ state: 'active', retryCount: 1 }),
      { timeout: 60_000, interval: 100 },
    )
    expect(await findJob(id)).toMatchObject({ status: 'running', attempts: 1 })
    release()

    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('succeeded'), { timeout: 120_000, interval: 100 })
    await vi.waitFor(async () => expect((await boss.getJobById(TOOL_JOB_QUEUE, id))?.state).toBe('completed'), { timeout: 60_000, interval: 100 })
    expect(runs).toHaveBeenCalledTimes(1)
    runs.mockRestore()
    expect(await findJob(id)).toMatchObject({ status: 'succeeded', attempts: 1, refunded: false })
    expect(await balanceOf(user)).toBe(balance - toolCost('background-remover'))
    const { balance: after, sum } = await ledgerSum(user.accountId)
    expect(sum).toBe(after)
  }, 300_000)

  it('is told from an ordinary end, when pg-boss aborts the same signal: nothing is said of a lost claim', async () => {
    const user = await newUser()
    claimLost.mockClear()
    const posted = await photoJob(user)
    expect(posted.status, JSON.stringify(posted.body)).toBe(202)
    const id = posted.body.id as string
    const boss = await toolQueues()
    // pg-boss marks the job completed after the handler has returned and it has aborted the signal.
    await vi.waitFor(async () => expect((await boss.getJobById(TOOL_JOB_QUEUE, id))?.state).toBe('completed'), { timeout: 120_000, interval: 100 })
    expect(await findJob(id)).toMatchObject({ status: 'succeeded', attempts: 1 })
    expect(claimLost).not.toHaveBeenCalled()
  }, 300_000)

  // Last in the file: the drain stops this process's worker for good.
  it('handed back at shutdown after its claim was taken: the job goes back to the queue, neither failed nor completed unrun', async () => {
    const user = await newUser()
    claimLost.mockClear()
    // The run holds until the drain stops it.
    const runner = runnerFor('background-remover')
    let entered!: () => void
    const started = new Promise<void>((resolve) => (entered = resolve))
    const runs = vi.spyOn(runner, 'run').mockImplementation(async ({ signal }) => {
      entered()
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
      throw signal.reason
    })
    const posted = await photoJob(user)
    expect(posted.status, JSON.stringify(posted.body)).toBe(202)
    const id = posted.body.id as string
    leftovers.push(id)
    await started
    const boss = await toolQueues()
    await boss.fail(TOOL_JOB_QUEUE, id, { message: 'heartbeat not seen in time (the test)' })
    await vi.waitFor(() => expect(claimLost).toHaveBeenCalled(), { timeout: 60_000, interval: 100 })
    await vi.waitFor(
      async () => expect(await boss.getJobById(TOOL_JOB_QUEUE, id)).toMatchObject({ state: 'active', retryCount: 1 }),
      { timeout: 60_000, interval: 100 },
    )

    // Its pg-boss signal was spent on the lost claim: the drain's own stop of what still runs hands it back.
    await drainJobWorker(1_000)
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('queued'), { timeout: 60_000, interval: 100 })
    expect(runs).toHaveBeenCalledTimes(1)
    runs.mockRestore()
    expect(await findJob(id)).toMatchObject({ status: 'queued', refunded: false })
    // Nor did pg-boss complete the job while its row waits (the attempt that waited for the run went back too).
    const { rows } = await sql<{ state: string }>`select state from ${sql.id(databaseHandle().bossSchema)}.job where id = ${id}`.execute(getDb())
    expect(rows[0]?.state).not.toBe('completed')
  }, 300_000)
})
