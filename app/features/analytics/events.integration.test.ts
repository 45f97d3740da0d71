import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { action, loader } from '~/routes/api.analytics.events'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { MAX_METADATA_BYTES } from './events.server'

const PATH = '/api/analytics/events/'


function randomIp(): string {
  return `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}`
}

async function post(body: unknown, init: { contentType?: string; ip?: string } = {}) {
  const request = new Request(BASE + PATH, {
    method: 'POST',
    headers: { 'content-type': init.contentType ?? 'application/json', 'x-facet-client-ip': init.ip ?? randomIp() },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const response = (await action(routeArgs(request))) as Response
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

async function eventsForSession(sessionId: string) {
  return getDb().selectFrom('analytics_events').selectAll().where('session_id', '=', sessionId).execute()
}

describe('POST /api/analytics/events/', () => {
  it('stores a valid event and answers 204 with no body', async () => {
    const sessionId = randomUUID()
    const { status, json } = await post({
      event_name: 'face_blur_requested',
      session_id: sessionId,
      path: '/tools/face-blurrer?x=1',
      referrer: 'https://example.com/',
      metadata: { blur: 32, file_type: 'image/png' },
    })
    expect(status).toBe(204)
    expect(json).toBeNull()
    const rows = await eventsForSession(sessionId)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      event_name: 'face_blur_requested',
      path: '/tools/face-blurrer?x=1',
      referrer: 'https://example.com/',
      metadata: { blur: 32, file_type: 'image/png' },
    })
  })

  it('accepts the text/plain body a beacon may send, and missing optional fields', async () => {
    const sessionId = randomUUID()
    const body = JSON.stringify({ event_name: 'page_view', session_id: sessionId })
    const { status } = await post(body, { contentType: 'text/plain;charset=UTF-8' })
    expect(status).toBe(204)
    const rows = await eventsForSession(sessionId)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ event_name: 'page_view', path: null, referrer: null, metadata: {} })
  })

  it.each([
    ['malformed JSON', '{"event_name":', /JSON object/],
    ['a JSON array', '[1,2]', /JSON object/],
    ['no event name', { session_id: 'abc' }, /event_name/],
    ['an event name with capitals and spaces', { event_name: 'Page View' }, /event_name/],
    ['an event name over 64 characters', { event_name: 'a'.repeat(65) }, /event_name/],
    ['a session id over 64 characters', { event_name: 'page_view', session_id: 's'.repeat(65) }, /session_id/],
    ['a path over 2048 characters', { event_name: 'page_view', path: '/' + 'p'.repeat(2048) }, /path/],
    ['a referrer over 2048 characters', { event_name: 'page_view', referrer: 'r'.repeat(2049) }, /referrer/],
    ['metadata that is not an object', { event_name: 'page_view', metadata: [1, 2] }, /metadata/],
    ['metadata over 4 KB', { event_name: 'page_view', metadata: { blob: 'x'.repeat(MAX_METADATA_BYTES) } }, /metadata/],
    ['a body over 16 KB', 'x'.repeat(17 * 1024), /too large/],
  ])('refuses %s with 400 and a JSON error', async (_label, body, message) => {
    const sessionMarker = randomUUID()
    const payload = typeof body === 'object' && !Array.isArray(body) ? { ...body, session_id: (body as any).session_id ?? sessionMarker } : body
    const { status, json } = await post(payload)
    expect(status).toBe(400)
    expect(json.error).toMatch(message)
    expect(await eventsForSession(sessionMarker)).toHaveLength(0)
  })

  it('accepts metadata just under the 4 KB cap', async () => {
    const sessionId = randomUUID()
    // {"blob":"..."} adds 11 bytes of JSON around the value.
    const { status } = await post({ event_name: 'page_view', session_id: sessionId, metadata: { blob: 'x'.repeat(MAX_METADATA_BYTES - 11) } })
    expect(status).toBe(204)
  })

  it('rate-limits one client address without affecting another', async () => {
    const ip = randomIp()
    let limited: { status: number; json: any } | null = null
    for (let i = 0; i < 130 && !limited; i++) {
      const result = await post({ event_name: 'page_view' }, { ip })
      if (result.status === 429) limited = result
      else expect(result.status).toBe(204)
    }
    expect(limited?.status).toBe(429)
    expect(limited?.json.error).toMatch(/slow down/i)
    expect((await post({ event_name: 'page_view' }, { ip: randomIp() })).status).toBe(204)
  })

  it('answers GET with 405', async () => {
    const response = await loader()
    const { status, headers } = await readResult(response)
    expect(status).toBe(405)
    expect(headers.get('Allow')).toBe('POST')
  })
})
