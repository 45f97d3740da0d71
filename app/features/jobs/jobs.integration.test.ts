// Tool runs as jobs, through the endpoints, on PGlite and PostgreSQL: the async API, idempotency
// (replay, 409, 422), the queue's bound, and the outcome written exactly once.
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { executeTx, getDb } from '~/db/db.server'
import { charge } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as postJob } from '~/routes/api.jobs._index'
import { loader as getJob } from '~/routes/api.jobs.$id'
import { loader as getAnswer } from '~/routes/api.jobs.$id.answer'
import { action as removeBg } from '~/routes/api.remove-bg'
import { balanceOf, chargedJob, fileOf, fixture, newUser, newVisitor, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { findJob, insertJob } from './jobs.server'
import { recordDelivered, recordFailed } from './outcome.server'
import { idempotencyScope, KEY_REUSED_MESSAGE, requestFingerprint } from './door.server'
import { REPLAY_UNAVAILABLE } from './answer.server'
import { resolveCaller } from '~/features/account/caller.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { TOOL_JOB_DEAD_LETTER, toolQueues } from './queue.server'
import { announceJobEnded } from './events.server'
import { waitForJobEnd } from './wait.server'
import { LOST_RUN_MESSAGE, startJobWorker } from './worker.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

async function post(caller: TestCaller, fields: Record<string, string | Blob>, headers: Record<string, string> = {}) {
  return readResult(await postJob(routeArgs(formRequest('/api/jobs/', fields, { headers: { ...caller.headers, ...headers } }))))
}

async function jobOf(caller: TestCaller | null, id: string) {
  return readResult(await getJob(routeArgs(new Request(`${BASE}/api/jobs/${id}/`, { headers: caller?.headers ?? {} }), { id })))
}

async function sync(caller: TestCaller, fields: Record<string, string | Blob>, headers: Record<string, string> = {}) {
  return readResult(await removeBg(routeArgs(formRequest('/api/remove-bg/', fields, { headers: { ...caller.headers, ...headers } }))))
}

describe('POST /api/jobs/ and GET /api/jobs/<id>/', () => {
  it('accepts a run at once (202 + Location), reports it to its owner only, and answers like the endpoint', async () => {
    const visitor = await newVisitor()
    const accepted = await post(visitor, { tool: 'background-remover', image: photo() })
    expect(accepted.status).toBe(202)
    const { id } = accepted.body
    expect(accepted.body).toEqual({ id, status: 'queued', url: `/api/jobs/${id}/` })
    expect(accepted.headers.get('Location')).toBe(`/api/jobs/${id}/`)
    expect(accepted.headers.get('X-Credits-Remaining')).toBe('4')

    let seen: any
    await vi.waitFor(
      async () => {
        seen = (await jobOf(visitor, id)).body
        expect(seen.status).toBe('succeeded')
      },
      { timeout: 30_000, interval: 50 },
    )
    expect(seen).toEqual({
      id,
      tool: 'background-remover',
      status: 'succeeded',
      progress: 100,
      // A finished run reports the tool's last step, not the stage it last worked in (issue 21).
      stage: 'Cutout ready',
      result_url: expect.stringMatching(/^\/api\/results\/[0-9a-f-]{36}$/),
      // The same result for a caller without the visitor's cookie, for an hour (decision 174).
      signed_result_url: expect.stringMatching(/^\/api\/results\/[0-9a-f-]{36}\?expires=\d+&signature=[\w-]{43}$/),
      error: null,
      remaining: 4,
      // Ended: no clock to tell (job-time.integration.test.ts has them while it runs).
      elapsed_seconds: null,
      estimated_seconds_left: null,
    })
    expect(seen.signed_result_url.startsWith(`${seen.result_url}?`)).toBe(true)
    expect((await jobOf(null, id)).status).toBe(404)
    expect((await jobOf(await newVisitor(), id)).status).toBe(404)
    expect((await jobOf(visitor, 'not-a-job')).status).toBe(404)

    const answer = await readResult(await getAnswer(routeArgs(new Request(`${BASE}/api/jobs/${id}/answer/`, { headers: visitor.headers }), { id })))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    expect(answer.headers.get('X-Credits-Remaining')).toBe('4')
    // The upload is deleted once the job has ended.
    const row = await getDb().selectFrom('tool_jobs').select(['upload_ciphertext', 'outcome']).where('id', '=', id).executeTakeFirstOrThrow()
    expect(row).toEqual({ upload_ciphertext: null, outcome: 'success' })
  })

  it('refuses an unknown tool or the tool\'s own bad input with its message, charging nothing', async () => {
    const visitor = await newVisitor()
    const unknown = await post(visitor, { tool: 'teleporter', image: photo() })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatch(/^tool must be one of background-remover/)
    const badBlur = await post(visitor, { tool: 'face-blurrer', image: photo(), blur: '13' })
    expect(badBlur.status).toBe(400)
    expect(badBlur.body.error).toMatch(/^blur must be/)
    const notImage = await post(visitor, { tool: 'background-remover', image: fileOf(Buffer.from('plain text, no picture'), 'a.png', 'image/png') })
    expect(notImage.status).toBe(415)
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('Idempotency-Key on a tool endpoint', () => {
  it('replays a delivered run without a second charge; another request with the key answers 422', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const key = { 'idempotency-key': `k-${randomUUID()}` }
    const first = await sync(user, { image: photo() }, key)
    expect(first.status).toBe(200)
    const again = await sync(user, { image: photo() }, key)
    expect(again.status).toBe(200)
    expect(again.headers.get('Idempotent-Replayed')).toBe('true')
    expect(Buffer.from(again.body).equals(Buffer.from(first.body))).toBe(true)
    expect(await balanceOf(user)).toBe(balance - 1)

    const otherOptions = await sync(user, { image: photo(), background: 'white' }, key)
    expect(otherOptions.status).toBe(422)
    expect(otherOptions.body.error).toBe(KEY_REUSED_MESSAGE)
    const otherFile = await sync(user, { image: fileOf(fixture('photos/noface-coffee.png'), 'c.png', 'image/png') }, key)
    expect(otherFile.status).toBe(422)
    expect(await balanceOf(user)).toBe(balance - 1)
  })

  it('answers 409 while the key\'s run is still running, and never runs it twice', async () => {
    const user = await newUser()
    const key = `k-${randomUUID()}`
    const bytes = fixture('photos/noface-rocket.jpg')
    const options = await runnerFor('background-remover').parseOptions({})
    // A job of this key that a worker holds (inserted as it stands mid-run), in the user's scope.
    const resolved = await resolveCaller(new Request(BASE + '/', { headers: user.headers }), { create: false })
    if (resolved.kind !== 'caller') throw new Error(resolved.kind)
    const id = randomUUID()
    await executeTx(getDb(), async (trx) => {
      const charged = await charge({ accountId: user.accountId, amount: 1, toolSlug: 'background_remover', idempotencyKey: `job:${id}` }, trx)
      if (!charged.ok) throw new Error('no charge')
      await insertJob(
        {
          id,
          accountId: user.accountId,
          tool: 'background-remover',
          options,
          originalName: 'mug.jpg',
          bytes,
          width: 1,
          height: 1,
          notes: [],
          idempotencyKey: key,
          idempotencyScope: idempotencyScope(resolved.caller, false),
          fingerprint: requestFingerprint('background-remover', options, bytes),
          chargeTransactionId: charged.transactionId,
        },
        trx,
      )
      await trx.updateTable('tool_jobs').set({ status: 'running' }).where('id', '=', id).execute()
    })
    const balance = await balanceOf(user)
    const retry = await sync(user, { image: photo() }, { 'idempotency-key': key })
    expect(retry.status).toBe(409)
    expect(retry.body.error).toBe(REPLAY_UNAVAILABLE)
    expect(await balanceOf(user)).toBe(balance)
    await recordFailed((await findJob(id))!, { status: 500, message: 'test over' }, null)
  })
})

describe('the outcome of a job', () => {
  it('is written once: a second failure or a late delivery changes nothing, and the refund happens once', async () => {
    const visitor = await newVisitor()
    const accepted = await post(visitor, { tool: 'background-remover', image: photo() })
    const id = accepted.body.id as string
    // Whoever comes first records the outcome; here a request that gave up waiting, at once.
    const first = await recordFailed((await findJob(id))!, { status: 503, message: 'stopped' }, null)
    const second = await recordFailed((await findJob(id))!, { status: 500, message: 'again' }, null)
    const late = await recordDelivered((await findJob(id))!, runnerFor('background-remover'), { bytes: Buffer.from('x'), contentType: 'image/png', modelMs: 1 }, 1)
    // The worker's own ending (success or failure) is the third writer, and also changes nothing.
    await vi.waitFor(async () => expect((await jobOf(visitor, id)).body.status).toBe('failed'), { timeout: 30_000, interval: 50 })
    expect(first?.status).toBe('failed')
    expect(second).toBeNull()
    expect(late).toBeNull()
    const job = await findJob(id)
    expect(job).toMatchObject({ status: 'failed', error: 'stopped', refunded: true, result_id: null })
    const refunds = await getDb()
      .selectFrom('credit_transactions')
      .select(['delta'])
      .where('account_id', '=', visitor.accountId)
      .where('kind', '=', 'adjustment')
      .execute()
    expect(refunds).toEqual([{ delta: 1 }])
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('a request waiting for its job', () => {
  /** A job no worker will take (it has no pg-boss job), as the submitting request holds it. */
  async function queuedJob(caller: TestCaller) {
    const job = await chargedJob(caller)
    expect(job).toMatchObject({ status: 'queued', account_id: caller.accountId })
    return job
  }
  const output = { bytes: Buffer.from('result bytes'), contentType: 'image/png', modelMs: 1 }

  it('hears the end from the worker of its own process, with the output and no read back', async () => {
    const visitor = await newVisitor()
    const job = await queuedJob(visitor)
    const waiting = waitForJobEnd(job.id, 30_000, job)
    const ended = await recordDelivered(job, runnerFor('background-remover'), output, 1)
    announceJobEnded({ jobId: job.id, job: ended!, delivered: output })
    const heard = await waiting
    expect(heard?.job).toMatchObject({ id: job.id, status: 'succeeded', result_id: ended!.result_id })
    expect(heard?.delivered?.bytes.toString()).toBe('result bytes')
  })

  it('learns from the database when another process ran the job (no event here)', async () => {
    const visitor = await newVisitor()
    const job = await queuedJob(visitor)
    const waiting = waitForJobEnd(job.id, 30_000, job)
    // Another process's worker records the outcome: nothing is announced in this one.
    const ended = await recordDelivered(job, runnerFor('background-remover'), output, 1)
    const heard = await waiting
    expect(heard?.job).toMatchObject({ id: job.id, status: 'succeeded', result_id: ended!.result_id })
    // No bytes in memory: the answer reads the stored result.
    expect(heard?.delivered).toBeUndefined()
  })

  it('hears an end announced without the row (the dead-letter handler) by reading it', async () => {
    const visitor = await newVisitor()
    const job = await queuedJob(visitor)
    const waiting = waitForJobEnd(job.id, 30_000, job)
    await recordFailed(job, { status: 503, message: 'lost' }, null)
    announceJobEnded({ jobId: job.id })
    expect((await waiting)?.job).toMatchObject({ id: job.id, status: 'failed', error: 'lost', refunded: true })
  })

  it('gives up at its time limit while the job still runs', async () => {
    const visitor = await newVisitor()
    const job = await queuedJob(visitor)
    expect(await waitForJobEnd(job.id, 300, job)).toBeNull()
    expect(await waitForJobEnd(job.id, 0)).toBeNull()
    await recordFailed(job, { status: 500, message: 'test over' }, null)
    expect((await waitForJobEnd(job.id, 0))?.job.status).toBe('failed')
  })
})

describe('pg-boss beside our transactions', () => {
  it('a transaction held open while the worker polls: its writes roll back whole and the queue keeps working', async () => {
    await startJobWorker()
    const visitor = await newVisitor()
    const marker = randomUUID()
    await expect(
      executeTx(getDb(), async (trx) => {
        await trx.insertInto('contact_messages').values({ full_name: 'held', email: 'held@example.test', company: null, message: marker }).execute()
        // Longer than pg-boss's polling interval (0.5 s): its fetches come and wait meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1_500))
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    const leaked = await getDb().selectFrom('contact_messages').select('id').where('message', '=', marker).execute()
    expect(leaked).toEqual([])
    // pg-boss's own statements neither joined nor broke ours: a job still runs to its end.
    const accepted = await post(visitor, { tool: 'background-remover', image: photo() })
    await vi.waitFor(async () => expect((await jobOf(visitor, accepted.body.id)).body.status).toBe('succeeded'), { timeout: 30_000, interval: 50 })
  })
})

describe('a job pg-boss gave up on', () => {
  it('goes to the dead-letter queue after its last retry, whose handler fails it and refunds once', async () => {
    const boss = await toolQueues()
    // pg-boss's routing, on a queue set up like tool-run: a job failed past its retry limit is copied.
    const source = `test-${randomUUID()}`
    const dead = `${source}-dead`
    await boss.createQueue(dead)
    await boss.createQueue(source, { retryLimit: 0, deadLetter: dead })
    await boss.send(source, { jobId: 'x' })
    const [taken] = await boss.fetch(source)
    await boss.fail(source, taken!.id, { error: 'worker died' })
    await vi.waitFor(async () => expect((await boss.fetch(dead)).map((j) => j.data)).toEqual([{ jobId: 'x' }]), { timeout: 10_000 })

    // The handler of tool-run-dead: a job whose workers kept dying fails with LOST_RUN_MESSAGE, refunded.
    const visitor = await newVisitor()
    const { id } = await chargedJob(visitor, { status: 'running', attempts: 3 })
    expect(await balanceOf(visitor)).toBe(4)
    await startJobWorker()
    await boss.send(TOOL_JOB_DEAD_LETTER, { jobId: id })
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('failed'), { timeout: 30_000, interval: 100 })
    expect(await findJob(id)).toMatchObject({ error: LOST_RUN_MESSAGE, refunded: true })
    expect(await balanceOf(visitor)).toBe(5)
    // Delivered twice (pg-boss is at-least-once): still one refund.
    // Waited on that delivery's own pg-boss job: the queue's counts are refreshed by pg-boss's monitor only
    // every 10 s.
    const again = await boss.send(TOOL_JOB_DEAD_LETTER, { jobId: id })
    await vi.waitFor(async () => expect((await boss.getJobById(TOOL_JOB_DEAD_LETTER, again!))?.state).toBe('completed'), { timeout: 30_000, interval: 100 })
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('the queue\'s bound', () => {
  it('answers 503 with Retry-After, charging nothing, while TOOL_QUEUE_LIMIT jobs wait', async () => {
    const holder = await newUser()
    const waiting: string[] = []
    try {
      // Jobs no worker will take (they have no pg-boss job): the queue looks full.
      for (let i = 0; i < 8; i++) {
        const id = randomUUID()
        waiting.push(id)
        await executeTx(getDb(), async (trx) => {
          const charged = await charge({ accountId: holder.accountId, amount: 0, toolSlug: 'test', idempotencyKey: `job:${id}` }, trx)
          if (!charged.ok) throw new Error('no charge')
          await insertJob(
            { id, accountId: holder.accountId, tool: 'background-remover', options: {}, originalName: 'x', bytes: Buffer.from('x'), width: 1, height: 1, notes: [], idempotencyKey: null, fingerprint: 'x', chargeTransactionId: charged.transactionId },
            trx,
          )
        })
      }
      const visitor = await newVisitor()
      const busy = await sync(visitor, { image: photo() })
      expect(busy.status).toBe(503)
      expect(Number(busy.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
      expect(busy.body.remaining).toBe(5)
      expect(await balanceOf(visitor)).toBe(5)
    } finally {
      await getDb().deleteFrom('tool_jobs').where('id', 'in', waiting).execute()
    }
  })
})
