// takeJobHere (docs/decisions/124) on PGlite and PostgreSQL, with no worker in the process: in the
// transaction that has just sent a single run, pg-boss hands that job over; it refuses (the
// transaction rolls back) when another single run has waited longer, and finds nothing when the
// account already has JOBS_PER_ACCOUNT jobs running.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { executeTx, getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { NotThisJobError, sendToolJob, takeJobHere, TOOL_JOB_QUEUE, toolQueues } from './queue.server'

const sent: string[] = []

beforeAll(async () => {
  process.env.WORKER_CONCURRENCY = '0'
  process.env.JOBS_PER_ACCOUNT = '2'
  resetConfigForTests()
  // pg-boss started (its schema made) before the first test: slow on a busy machine.
  await toolQueues()
}, 180_000)

afterAll(async () => {
  const boss = await toolQueues()
  if (sent.length) await boss.deleteJob(TOOL_JOB_QUEUE, sent)
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WORKER_CONCURRENCY
  delete process.env.JOBS_PER_ACCOUNT
  resetConfigForTests()
})

/** In one transaction: the single run's job sent for `account`, then taken here (or not). */
async function sendAndTake(account: string): Promise<{ jobId: string; taken: Awaited<ReturnType<typeof takeJobHere>> }> {
  const boss = await toolQueues()
  const jobId = randomUUID()
  sent.push(jobId)
  const taken = await executeTx(getDb(), async (trx) => {
    await sendToolJob(boss, trx, jobId, account)
    return takeJobHere(boss, trx, jobId)
  })
  return { jobId, taken }
}

// Files before this one in the worker may have left single runs queued: each test starts from an empty
// queue, as the order of pg-boss's fetch is what it proves.
beforeEach(async () => {
  await (await toolQueues()).deleteQueuedJobs(TOOL_JOB_QUEUE)
})

describe('takeJobHere', () => {
  it('hands this process the job its transaction has just sent, active in pg-boss once committed', async () => {
    const boss = await toolQueues()
    const { jobId, taken } = await sendAndTake(randomUUID())
    expect(taken).toEqual({ id: jobId, retryCount: 0 })
    expect((await boss.getJobById(TOOL_JOB_QUEUE, jobId))?.state).toBe('active')
  })

  it('refuses when another single run has waited longer: the transaction rolls back, that run stays first', async () => {
    const boss = await toolQueues()
    const waiting = randomUUID()
    sent.push(waiting)
    await executeTx(getDb(), (trx) => sendToolJob(boss, trx, waiting, randomUUID()))
    let mine = ''
    await expect(
      sendAndTake(randomUUID()).catch((error: unknown) => {
        mine = sent.at(-1)!
        throw error
      }),
    ).rejects.toBeInstanceOf(NotThisJobError)
    expect(await boss.getJobById(TOOL_JOB_QUEUE, mine)).toBeNull()
    expect((await boss.getJobById(TOOL_JOB_QUEUE, waiting))?.state).toBe('created')
    await boss.deleteJob(TOOL_JOB_QUEUE, waiting)
  })

  it('finds nothing when the account has JOBS_PER_ACCOUNT jobs running: the job waits for a worker', async () => {
    const boss = await toolQueues()
    const account = randomUUID()
    expect((await sendAndTake(account)).taken).not.toBeNull()
    expect((await sendAndTake(account)).taken).not.toBeNull()
    const third = await sendAndTake(account)
    expect(third.taken).toBeNull()
    expect((await boss.getJobById(TOOL_JOB_QUEUE, third.jobId))?.state).toBe('created')
    // Another account's run is not held back by it: pg-boss skips the account at its share.
    expect((await sendAndTake(randomUUID())).taken).not.toBeNull()
  })
})
