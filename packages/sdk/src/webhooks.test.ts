// verifyWebhook against deliveries the studio itself signs (delivery.server.ts's sendSigned, to a local
// receiver), and against the ways a delivery can be forged or replayed.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendSigned } from '~/features/webhooks/delivery.server'
import { verifyWebhook, WebhookVerificationError } from './webhooks'

// The Standard Webhooks specification's example secret: a known key, so the test is reproducible.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const EVENT = { type: 'job.succeeded', timestamp: '2026-11-27T12:00:00.000Z', data: { id: 'a5b1c2d3-0000-4000-8000-000000000001', status: 'succeeded' } }

let received: Promise<{ body: Buffer; headers: IncomingHttpHeaders }>
const server = createServer()
beforeAll(async () => {
  received = new Promise((resolve) => {
    server.on('request', (request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        response.writeHead(204).end()
        resolve({ body: Buffer.concat(chunks), headers: request.headers })
      })
    })
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
})
afterAll(() => new Promise<void>((closed) => server.close(() => closed())))

function signed(body: string, when = new Date(), secret = SECRET, id = 'msg_1') {
  const timestamp = String(Math.floor(when.getTime() / 1000))
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': new Webhook(secret).sign(id, when, body) }
}

describe('verifyWebhook', () => {
  it('accepts a delivery the studio signed and sent, as the receiver got it (raw bytes, Node headers)', async () => {
    const { port } = server.address() as AddressInfo
    const outcome = await sendSigned(`http://127.0.0.1:${port}/hook`, SECRET, 'msg_studio', JSON.stringify(EVENT), new Date(), { isPublic: () => true })
    expect(outcome).toMatchObject({ ok: true, statusCode: 204 })
    const { body, headers } = await received
    expect(verifyWebhook(body, headers, SECRET)).toEqual(EVENT)
  })

  it('accepts a fetch Headers object and a string body', () => {
    const body = JSON.stringify(EVENT)
    expect(verifyWebhook(body, new Headers(signed(body)), SECRET)).toEqual(EVENT)
  })

  it('refuses a changed body, another secret, a missing signature and an old timestamp', () => {
    const body = JSON.stringify(EVENT)
    const headers = signed(body)
    expect(() => verifyWebhook(body.replace('succeeded', 'failed'), headers, SECRET)).toThrow(WebhookVerificationError)
    expect(() => verifyWebhook(body, headers, 'whsec_' + Buffer.from('another secret, 24 bytes!').toString('base64'))).toThrow(WebhookVerificationError)
    expect(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, SECRET)).toThrow(WebhookVerificationError)
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000)
    expect(() => verifyWebhook(body, signed(body, anHourAgo), SECRET)).toThrow(WebhookVerificationError)
  })
})
