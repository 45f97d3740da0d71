// pg-boss takes a live run's claim away (its supervision saw no heartbeat in time: on PGlite any
// forward step of the wall clock does it, docs/decisions/177 and 194), on PGlite and PostgreSQL. Its
// heartbeat then aborts the job's signal; the run goes on and is delivered once, charged once, and
// pg-boss's retry, handed out here meanwhile, waits for it and finds the job ended. (Before, the run
// stopped as if handed back at shutdown and started again from nothing: attempts 2, the work done twice.)
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { stopBoss } from '~/features/queue/boss.server'
import { toolCost } from '~/features/tools/costs.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { action as postJob } from '~/routes/api.jobs._index'
import { logger } from '~/utils/logger.server'
import { balanceOf, fileOf, fixture, ledgerSum, newUser } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { findJob } from './jobs.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'
import { CLAIM_LOST_LOG } from './worker.server'

const saved = { ...process.env }
beforeAll(() => {
  // Two slots: the retry is handed out here while the first attempt still runs in the other.
  process.env.WORKER_CONCURRENCY = '2'
  // pg-boss refreshes heartbeats every half of this: the loss is noticed within 5 s.
  process.env.JOB_HEARTBEAT_SECONDS = '10'
  resetConfigForTests()
})
afterAll(async () => {
  vi.restoreAllMocks()
  await stopBoss({ timeoutMs: 5_000 }).catch(() => {})
  process.env = saved
  resetConfigForTests()
})

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
    const claimLost = vi.fn()
    const warn = logger.warn.bind(logger)
    vi.spyOn(logger, 'warn').mockImplementation(((...args: Parameters<typeof logger.warn>) => {
      if (args.includes(CLAIM_LOST_LOG as never)) claimLost()
      return warn(...args)
    }) as typeof logger.warn)

    const photo = fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
    const posted = await readResult(await postJob(routeArgs(formRequest('/api/jobs/', { tool: 'background-remover', image: photo }, { headers: user.headers }))))
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
    expect(await findJob(id)).toMatchObject({ status: 'succeeded', attempts: 1, refunded: false })
    expect(await balanceOf(user)).toBe(balance - toolCost('background-remover'))
    const { balance: after, sum } = await ledgerSum(user.accountId)
    expect(sum).toBe(after)
  }, 300_000)
})
