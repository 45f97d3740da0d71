// Webhooks end to end on a real database and a real receiver on 127.0.0.1: registration rules,
// events that exist only when their transaction commits, signatures checked with the
// standardwebhooks library, a retry after a 500, and redelivery by the owner.
import { config } from '~/config.server'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { executeTx, getDb } from '~/db/db.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { getBoss, stopBoss } from '~/features/queue/boss.server'
import { BASE, jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'
import { action as deleteWebhook } from '../../routes/api.webhooks.$id'
import { action as redeliverRoute } from '../../routes/api.webhooks.deliveries.$id.redeliver'
import { action as createWebhook, loader as listWebhooks } from '../../routes/api.webhooks'
import { RESPONSE_EXCERPT_BYTES, sendSigned, startWebhookWorker } from './delivery.server'
import { emitEvent, prepareWebhooks, WEBHOOK_QUEUE } from './endpoints.server'

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

let server: Server
let port = 0
const received: Received[] = []
/** How the receiver answers the next requests (then 200). */
const scripted: number[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.statusCode = scripted.shift() ?? 200
      res.end(res.statusCode === 200 ? 'ok' : 'x'.repeat(5000))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  await prepareWebhooks()
})

afterAll(async () => {
  server.close()
  await stopBoss({ timeoutMs: 1_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

function allowPrivate(allowed: boolean) {
  process.env.WEBHOOKS_ALLOW_PRIVATE = allowed ? 'true' : 'false'
  resetConfigForTests()
}

const auth = (token: string) => ({ authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() })

async function register(token: string, body: unknown) {
  return readResult(await answerOf(createWebhook(routeArgs(jsonRequest('/api/webhooks/', body, { headers: auth(token) })))))
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await probe()
    if (value) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`gave up waiting for ${what}`)
}

const delivery = (id: string) => getDb().selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('registering webhook endpoints', () => {
  it('refuses non-http(s) URLs and, without WEBHOOKS_ALLOW_PRIVATE, private targets', async () => {
    allowPrivate(false)
    const { token } = await createVerifiedUser()
    const refusals: Array<[string, RegExp]> = [
      ['ftp://example.com/hook', /https:\/\/ or http:\/\//],
      ['javascript:alert(1)', /https:\/\/ or http:\/\//],
      ['not a url', /not a valid URL/],
      ['http://user:pass@example.com/', /user name or password/],
      ['http://127.0.0.1:8080/hook', /non-public address/],
      ['http://localhost/hook', /non-public address/],
      ['http://[::1]/hook', /non-public address/],
      ['http://[::ffff:10.0.0.1]/hook', /non-public address/],
      ['http://169.254.169.254/latest/meta-data/', /non-public address/],
      ['http://0x7f.1/', /non-public address/],
      // Issue 34: the deprecated IPv4-compatible form, NAT64 and a trailing dot.
      ['http://[::127.0.0.1]/hook', /non-public address/],
      ['http://[64:ff9b::7f00:1]/hook', /non-public address/],
      ['http://localhost./hook', /non-public address/],
    ]
    for (const [url, message] of refusals) {
      const res = await register(token, { url, events: ['job.succeeded'] })
      expect(res.status, url).toBe(400)
      expect(res.body.error, url).toMatch(message)
    }
    expect(await register(token, { url: 'https://hooks.example/x', events: [] })).toMatchObject({ status: 400, body: { errors: { events: ['Choose at least one event.'] } } })
    expect((await register(token, { url: 'https://hooks.example/x', events: ['job.exploded'] })).status).toBe(400)
  })

  it('creates, lists and deletes an endpoint; the secret is shown once', async () => {
    allowPrivate(true)
    const { token } = await createVerifiedUser()
    const other = await createVerifiedUser()
    const made = await register(token, { url: `http://127.0.0.1:${port}/hook`, events: ['job.succeeded', 'job.succeeded', 'batch.completed'] })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ id: expect.any(String), events: ['job.succeeded', 'batch.completed'], secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) })
    const stored = await getDb().selectFrom('webhook_endpoints').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow()
    expect(stored.secret_ciphertext.toString('latin1')).not.toContain(made.body.secret)
    const listed = await readResult(await answerOf(listWebhooks(routeArgs(new Request(`${BASE}/api/webhooks/`, { headers: auth(token) })))))
    expect(listed.body.results).toEqual([{ id: made.body.id, url: made.body.url, events: made.body.events, created_at: expect.any(String), deliveries: [] }])
    expect(JSON.stringify(listed.body)).not.toContain(made.body.secret)
    const del = (t: string) =>
      answerOf(deleteWebhook(routeArgs(new Request(`${BASE}/api/webhooks/${made.body.id}/`, { method: 'DELETE', headers: auth(t) }), { id: made.body.id })))
    expect((await readResult(await del(other.token))).status).toBe(404)
    expect((await readResult(await del(token))).status).toBe(204)
    expect((await readResult(await del(token))).status).toBe(404)
  })
})

describe('delivering events', () => {
  it('exists only when the transaction that emits it commits', async () => {
    allowPrivate(true)
    const { user, token } = await createVerifiedUser()
    const accountId = await ensureUserAccount(user.id)
    await register(token, { url: `http://127.0.0.1:${port}/rolled-back`, events: ['job.failed'] })
    await expect(
      executeTx(getDb(), async (trx) => {
        const ids = await emitEvent({ accountId, type: 'job.failed', data: { id: 'job_1' } }, trx)
        expect(ids).toHaveLength(1)
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    const rows = await getDb()
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select('d.id')
      .where('e.account_id', '=', accountId)
      .execute()
    expect(rows).toEqual([])
    // Endpoints that do not listen to an event get nothing.
    expect(await emitEvent({ accountId, type: 'job.succeeded', data: {} })).toEqual([])
  })

  it('signs each attempt, retries after a 500, logs attempts, and redelivers on request', async () => {
    allowPrivate(true)
    await startWebhookWorker({ retryDelaysSeconds: [1, 1, 1], pollingIntervalSeconds: 0.5 })
    const { user, token } = await createVerifiedUser()
    const accountId = await ensureUserAccount(user.id)
    const made = await register(token, { url: `http://127.0.0.1:${port}/hook`, events: ['job.succeeded'] })
    const verifier = new Webhook(made.body.secret)
    const start = received.length
    scripted.push(500)
    const [id] = await executeTx(getDb(), (trx) => emitEvent({ accountId, type: 'job.succeeded', data: { id: 'job_42', tool: 'background-remover', result_url: '/api/results/r_42' } }, trx))

    const done = await until('a successful second attempt', async () => {
      const row = await delivery(id)
      return row.status === 'succeeded' && row
    })
    expect(done).toMatchObject({ attempts: 2, last_status_code: 200, next_attempt_at: null, response_excerpt: 'ok' })
    const attempts = received.slice(start)
    expect(attempts).toHaveLength(2)
    for (const attempt of attempts) {
      expect(attempt.headers['webhook-id']).toBe(`msg_${id}`)
      const payload = verifier.verify(attempt.body, attempt.headers as Record<string, string>) as { type: string; data: unknown }
      // The receiver is another host: the studio's paths arrive as absolute addresses on PUBLIC_URL.
      expect(payload).toMatchObject({ type: 'job.succeeded', data: { id: 'job_42', tool: 'background-remover', result_url: `${new URL(config().PUBLIC_URL).origin}/api/results/r_42` } })
    }
    // A forged signature is refused by the same library.
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(attempts[0].body, attempts[0].headers as Record<string, string>)).toThrow()

    const listed = await readResult(await answerOf(listWebhooks(routeArgs(new Request(`${BASE}/api/webhooks/`, { headers: auth(token) })))))
    expect(listed.body.results[0].deliveries).toEqual([
      { id, event_type: 'job.succeeded', status: 'succeeded', attempts: 2, last_status_code: 200, last_error: null, next_attempt_at: null, created_at: expect.any(String) },
    ])

    const stranger = await createVerifiedUser()
    const redeliver = (t: string) =>
      answerOf(redeliverRoute(routeArgs(new Request(`${BASE}/api/webhooks/deliveries/${id}/redeliver/`, { method: 'POST', headers: auth(t) }), { id })))
    expect((await readResult(await redeliver(stranger.token))).status).toBe(404)
    expect((await readResult(await redeliver(token))).status).toBe(202)
    const again = await until('the redelivery', async () => {
      const row = await delivery(id)
      return row.attempts === 3 && row.status === 'succeeded' && row
    })
    expect(again.last_status_code).toBe(200)
    expect(received.slice(start)).toHaveLength(3)
    expect(received.at(-1)!.headers['webhook-id']).toBe(`msg_${id}`)
    expect(verifier.verify(received.at(-1)!.body, received.at(-1)!.headers as Record<string, string>)).toMatchObject({ type: 'job.succeeded' })
  })

  it('keeps only a short excerpt of an answer', async () => {
    allowPrivate(true)
    scripted.push(500)
    const outcome = await sendSigned(`http://127.0.0.1:${port}/big`, `whsec_${Buffer.alloc(24, 7).toString('base64')}`, 'msg_1', '{}')
    expect(outcome).toMatchObject({ ok: false, statusCode: 500, error: null })
    expect(outcome.excerpt).toBe('x'.repeat(RESPONSE_EXCERPT_BYTES))
  })

  it('gives up after the schedule', async () => {
    allowPrivate(true)
    await startWebhookWorker({ retryDelaysSeconds: [1, 1, 1], pollingIntervalSeconds: 0.5 })
    const { user, token } = await createVerifiedUser()
    const accountId = await ensureUserAccount(user.id)
    await register(token, { url: `http://127.0.0.1:${port}/down`, events: ['batch.completed'] })
    const [id] = await emitEvent({ accountId, type: 'batch.completed', data: { id: 'batch_1' } })
    // The worker started with three retry delays; force the schedule's end by pointing at a closed port.
    await getDb().updateTable('webhook_endpoints').set({ url: 'http://127.0.0.1:1/closed' }).where('account_id', '=', accountId).execute()
    const failed = await until('the delivery to give up', async () => {
      const row = await delivery(id)
      return row.status === 'failed' && row
    })
    expect(failed.attempts).toBe(4)
    expect(failed.last_status_code).toBeNull()
    expect(failed.last_error).toMatch(/ECONNREFUSED/)
    expect(failed.next_attempt_at).toBeNull()
    const boss = await getBoss()
    expect(await boss.getQueue(WEBHOOK_QUEUE)).toBeTruthy()
  })

  it('refuses to send to a private address at connect time when private targets are not allowed', async () => {
    allowPrivate(true)
    const { user, token } = await createVerifiedUser()
    const accountId = await ensureUserAccount(user.id)
    await register(token, { url: `http://localhost:${port}/rebound`, events: ['job.failed'] })
    const before = received.length
    allowPrivate(false)
    const { attemptDelivery } = await import('./delivery.server')
    const [id] = await emitEvent({ accountId, type: 'job.failed', data: {} })
    await attemptDelivery({ deliveryId: id, attempt: 1, manual: true })
    const row = await delivery(id)
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null })
    expect(row.last_error).toMatch(/not a public address/)
    expect(received.length).toBe(before)
    allowPrivate(true)
  })

  it('refuses every other form of a loopback target before sending anything (issue 34)', async () => {
    allowPrivate(false)
    const before = received.length
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`
    for (const host of ['[::127.0.0.1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '2130706433', '0x7f.1', '127.0.0.1.', 'localhost.']) {
      const outcome = await sendSigned(`http://${host}:${port}/hook`, secret, 'msg_forms', '{}')
      expect(outcome, host).toMatchObject({ ok: false, statusCode: null })
      expect(outcome.error, host).toMatch(/not a public address/)
    }
    expect(received.length).toBe(before)
    allowPrivate(true)
  })
})
