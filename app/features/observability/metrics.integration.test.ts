// A scrape after real tool runs shows them: runs by tool, model and outcome, their work and queue
// wait, the credits charged and refunded, the queue gauges read from the database, and Node's own
// metrics; webhook attempts by outcome. Through a real socket: /metrics is open to loopback, closed to a forwarded request, and
// opened from elsewhere by METRICS_TOKEN only.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { attemptDelivery } from '~/features/webhooks/delivery.server'
import { emitEvent, prepareWebhooks } from '~/features/webhooks/endpoints.server'
import { action as createWebhook } from '~/routes/api.webhooks'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { action as removeBgAction } from '~/routes/api.remove-bg'
import { jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'
import { fileOf, fixture, newVisitor, toolRequest } from '../../../tests/support/tools'
import { answerMetrics } from './http-metrics.server'
import { metricsText } from './metrics.server'

/** The value of one sample in the exposition text (0 when the series does not exist yet). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '))
  return line ? Number(line.slice(series.length + 1)) : 0
}

const photo = (name: string) => fileOf(fixture(`photos/${name}`), name)

beforeAll(() => {
  // Through the queue, whose wait is measured: inline runs (decision 176) are counted in jobs/inline.integration.test.ts.
  process.env.INLINE_RUN_MS = '0'
  resetConfigForTests()
})

afterAll(async () => {
  await stopBoss({ timeoutMs: 2_000 })
  delete process.env.INLINE_RUN_MS
  resetConfigForTests()
})

describe('the metrics after real runs', () => {
  it('count a delivered run and a refunded one by tool, model and outcome, with their durations and credits', async () => {
    const before = (await metricsText()).body
    const visitor = await newVisitor()
    const removed = await readResult(await removeBgAction(routeArgs(toolRequest('/api/remove-bg/', { image: photo('product-router-alpha-groundtruth.png') }, visitor.headers))))
    expect(removed.status).toBe(200)
    // No face in the photo: delivered, and the charge refunded.
    const blurred = await readResult(await blurAction(routeArgs(toolRequest('/api/face-blur/blur/', { image: photo('noface-rocket.jpg'), blur: '32' }, visitor.headers))))
    expect(blurred.status).toBe(200)
    expect(blurred.headers.get('X-Faces-Found')).toBe('0')

    const { body: after, contentType } = await metricsText()
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    const delta = (series: string) => sample(after, series) - sample(before, series)
    expect(delta('facet_tool_runs_total{tool="background-remover",model="u2netp",outcome="success",path="queue"}')).toBe(1)
    expect(delta('facet_tool_runs_total{tool="face-blurrer",model="yunet",outcome="no_face",path="queue"}')).toBe(1)
    expect(delta('facet_tool_run_duration_seconds_count{tool="background-remover",model="u2netp",path="queue"}')).toBe(1)
    expect(delta('facet_tool_run_duration_seconds_sum{tool="background-remover",model="u2netp",path="queue"}')).toBeGreaterThan(0)
    expect(delta('facet_tool_queue_wait_seconds_count{tool="background-remover"}')).toBe(1)
    expect(delta('facet_tool_queue_wait_seconds_count{tool="face-blurrer"}')).toBe(1)
    // The remover's 1 credit and the blurrer's charge, and the blurrer's refund.
    expect(delta('facet_credits_charged_total')).toBeGreaterThanOrEqual(2)
    expect(delta('facet_credits_refunded_total')).toBeGreaterThanOrEqual(1)
    // Both jobs ended: the gauges read from tool_jobs at this scrape.
    expect(after).toMatch(/^facet_queue_jobs\{state="waiting"\} \d+$/m)
    expect(after).toMatch(/^facet_queue_jobs\{state="running"\} \d+$/m)
    expect(after).toMatch(/^facet_queue_oldest_waiting_seconds [\d.e+-]+$/m)
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds [\d.e+-]+$/m)
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m)
  })
})

describe('webhook deliveries', () => {
  it('are counted by outcome: succeeded, retrying (tried again later), failed (given up)', async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
    resetConfigForTests()
    const answers = [200, 500, 500]
    const receiver = createServer((req, res) => {
      req.resume().on('end', () => res.writeHead(answers.shift() ?? 200).end())
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      await prepareWebhooks()
      const { user, token } = await createVerifiedUser()
      const accountId = await ensureUserAccount(user.id)
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      const headers = { authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() }
      expect((await readResult(await answerOf(createWebhook(routeArgs(jsonRequest('/api/webhooks/', { url, events: ['job.failed'] }, { headers })))))).status).toBe(201)
      const before = (await metricsText()).body
      const deliver = async (attempt: { attempt: number; manual: boolean }) => {
        const [id] = await emitEvent({ accountId, type: 'job.failed', data: {} })
        await attemptDelivery({ deliveryId: id!, ...attempt })
      }
      await deliver({ attempt: 1, manual: false }) // 200
      await deliver({ attempt: 1, manual: false }) // 500, a retry is scheduled
      await deliver({ attempt: 1, manual: true }) // 500, a manual redelivery is not retried
      const after = (await metricsText()).body
      const delta = (outcome: string) => sample(after, `facet_webhook_deliveries_total{outcome="${outcome}"}`) - sample(before, `facet_webhook_deliveries_total{outcome="${outcome}"}`)
      expect([delta('succeeded'), delta('retrying'), delta('failed')]).toEqual([1, 1, 1])
    } finally {
      receiver.close()
      delete process.env.WEBHOOKS_ALLOW_PRIVATE
      resetConfigForTests()
    }
  })
})

describe('who may scrape', () => {
  let server: Server
  let token: string | undefined
  let url = ''

  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

  it('loopback reads it; a forwarded request is refused unless it shows METRICS_TOKEN', async () => {
    server = createServer((req, res) => void answerMetrics(req, res, token))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`

    const local = await fetch(url)
    expect(local.status).toBe(200)
    expect(await local.text()).toContain('# TYPE facet_http_requests_total counter')

    // A reverse proxy on this machine connects from loopback on behalf of anyone.
    token = undefined
    const proxiedNoToken = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    expect(proxiedNoToken.status).toBe(404)

    token = 'a-metrics-token-of-some-length'
    const wrong = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer not-the-token' } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/)
    const right = await fetch(url, { headers: { forwarded: 'for=203.0.113.9', authorization: `Bearer ${token}` } })
    expect(right.status).toBe(200)
    expect(await right.text()).toContain('facet_tool_runs_total')
  })
})
