// Requests waiting for a job when their process shuts down (docs/decisions/088), on PGlite and
// PostgreSQL, in one test because the shutdown is announced once per process: a synchronous request
// whose job went back to the queue answers at once with 503, Retry-After and the job's URL; a job
// running elsewhere that ends before the drain's deadline is answered as usual; one still running at
// the deadline is cut then. (tests/e2e/server.spec.ts does the same with a real server and SIGTERM.)
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { balanceOf, chargedJob, fileOf, fixture, newVisitor, type TestCaller } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { runnerFor } from '~/features/tools/runners/index.server'
import { announceShutdown } from './events.server'
import { findJob } from './jobs.server'
import { recordDelivered } from './outcome.server'
import { HANDED_BACK_RETRY_SECONDS, handedBackMessage } from './answer.server'
import { waitForJobEnd } from './wait.server'

beforeAll(() => {
  // No worker here: the submitted job stays queued, as one handed back at shutdown is.
  process.env.WORKER_CONCURRENCY = '0'
  resetConfigForTests()
})

/** Accounts made here: their jobs are deleted after (never run, they would wait in a shared PostgreSQL schema). */
const accounts: string[] = []

async function visitor(): Promise<TestCaller> {
  const made = await newVisitor()
  accounts.push(made.accountId)
  return made
}

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
  if (accounts.length) await getDb().deleteFrom('tool_jobs').where('account_id', 'in', accounts).execute()
  delete process.env.WORKER_CONCURRENCY
  resetConfigForTests()
})

describe('a shutdown while requests wait for their jobs', () => {
  it('answers the handed-back run with its URL at once, lets a run elsewhere end until the deadline, and cuts one still running then', async () => {
    const sender = await visitor()
    const photo = fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
    const answer = removeBg(routeArgs(formRequest('/api/remove-bg/', { image: photo }, { headers: sender.headers })))
    // The request is waiting once its job is written.
    let jobId = ''
    await vi.waitFor(
      async () => {
        const row = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', sender.accountId).executeTakeFirst()
        expect(row).toBeDefined()
        jobId = row!.id
      },
      { timeout: 30_000, interval: 50 },
    )
    const other = await visitor()
    const endsInTime = await chargedJob(other, { status: 'running' })
    const outlasts = await chargedJob(other, { status: 'running' })
    const inTime = waitForJobEnd(endsInTime.id, 60_000, endsInTime)
    const cut = waitForJobEnd(outlasts.id, 60_000, outlasts)

    // The drain's deadline: long enough for the run elsewhere to end in time on a slow machine.
    const deadline = performance.now() + 10_000
    announceShutdown(deadline)
    // The run in another process ends before the deadline.
    const delivered = await recordDelivered(endsInTime, runnerFor('background-remover'), { bytes: Buffer.from('png'), contentType: 'image/png', modelMs: 1 }, 1)

    const handedBack = await readResult(await answer)
    expect(handedBack.status).toBe(503)
    expect(handedBack.headers.get('Retry-After')).toBe(String(HANDED_BACK_RETRY_SECONDS))
    expect(handedBack.headers.get('Location')).toBe(`/api/jobs/${jobId}/`)
    expect(handedBack.headers.get('X-Credits-Charged')).toBe('1')
    expect(handedBack.body).toEqual({ error: handedBackMessage(jobId), detail: handedBackMessage(jobId), remaining: 4, job_id: jobId, job_url: `/api/jobs/${jobId}/`, answer_url: `/api/jobs/${jobId}/answer/` })
    // The run goes on: still queued, charged once, not refunded.
    expect(await findJob(jobId)).toMatchObject({ status: 'queued', refunded: false })
    expect(await balanceOf(sender)).toBe(4)

    // Its waiter gets the normal answer.
    expect((await inTime)).toMatchObject({ job: { id: endsInTime.id, status: 'succeeded', result_id: delivered!.result_id } })
    expect((await inTime)?.interrupted).toBeUndefined()

    // The other is still running at the deadline: cut then, not before.
    const ended = await cut
    expect(Date.now()).toBeGreaterThanOrEqual(deadline)
    expect(ended).toMatchObject({ interrupted: true, job: { id: outlasts.id, status: 'running' } })
  })
})
