// The guards in front of Remix (decision 162): a method served by nothing answers 405 with Allow and
// words, a cookieless page write from another origin 403; everything else goes on untouched. Run
// through Express on a real socket, as the server mounts them.
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CROSS_SITE_REFUSED, DATA_QUERY_REFUSED, FORM_TYPE_REFUSED, isForeignPageWrite, refuseDataQueries, refuseForeignPageWrites, refuseNonFormPageWrites, refuseUnservedMethods } from './request-guards.server'

let port = 0
let close: () => void = () => {}

beforeAll(async () => {
  const app = express()
  app.use(refuseUnservedMethods)
  app.use(refuseForeignPageWrites)
  app.use(refuseNonFormPageWrites)
  app.use(refuseDataQueries)
  app.all('*', (req, res) => {
    res.json({ reached: `${req.method} ${req.path}` })
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  port = (server.address() as AddressInfo).port
  close = () => server.close()
})
afterAll(() => close())

function send(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('methods served by nothing', () => {
  for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PURGE', 'SEARCH']) {
    it(`${method} answers 405 with Allow and a message`, async () => {
      const answer = await send(method, '/')
      expect(answer.status).toBe(405)
      expect(answer.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
      expect(answer.body.error).toBe('Method not allowed. Use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS.')
    })
  }
  it('the served ones go on', async () => {
    expect((await send('GET', '/')).body).toEqual({ reached: 'GET /' })
    expect((await send('DELETE', '/api/webhooks/x/')).body).toEqual({ reached: 'DELETE /api/webhooks/x/' })
  })
})

describe('page writes from another origin, without cookies', () => {
  it('are refused with 403 and words; Origin "null" too', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
      const answer = await send('POST', '/login', { origin })
      expect([answer.status, answer.body.error], origin).toEqual([403, CROSS_SITE_REFUSED])
    }
  })
  it('same-origin page writes, writes without Origin and /api writes go on', async () => {
    expect((await send('POST', '/login', { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200)
    expect((await send('POST', '/login', { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(200)
    expect((await send('POST', '/api/auth/login/', { origin: 'https://evil.example' })).status).toBe(200)
    expect((await send('GET', '/login', { origin: 'https://evil.example' })).status).toBe(200)
  })
  it('judges the host as Remix does: X-Forwarded-Host first', () => {
    const base = { method: 'POST', path: '/login', origin: 'https://studio.example' }
    expect(isForeignPageWrite({ ...base, host: '10.0.0.5:3000', forwardedHost: 'studio.example' })).toBe(false)
    expect(isForeignPageWrite({ ...base, host: 'studio.example', forwardedHost: 'other.example, studio.example' })).toBe(true)
    expect(isForeignPageWrite({ ...base, origin: 'not a url', host: 'studio.example', forwardedHost: undefined })).toBe(true)
  })
})

describe('page writes that are not forms', () => {
  it('a page takes POST only: PUT, PATCH and DELETE answer 405 with Allow', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const answer = await send(method, '/login', { 'content-type': 'application/x-www-form-urlencoded' })
      expect([answer.status, answer.headers.allow, answer.body.error], method).toEqual([405, 'GET, HEAD, POST', 'Method not allowed. Use GET, HEAD, POST.'])
    }
  })
  it('a page POST without a form body answers 415 with words; /api is left to its endpoints', async () => {
    for (const headers of [{}, { 'content-type': 'application/json' }, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const answer = await send('POST', '/verify-email', headers)
      expect([answer.status, answer.body.error], JSON.stringify(headers)).toEqual([415, FORM_TYPE_REFUSED])
    }
    expect((await send('POST', '/api/auth/login/', { 'content-type': 'application/json' })).status).toBe(200)
    expect((await send('PUT', '/api/teams/x/', { 'content-type': 'application/json' })).status).toBe(200)
  })
})

describe("Remix's old ?_data requests", () => {
  it('answer 400 with words on pages; /api and other queries go on', async () => {
    const answer = await send('GET', '/no-such-page?_data=routes%2F%24')
    expect([answer.status, answer.body.error]).toEqual([400, DATA_QUERY_REFUSED])
    expect((await send('GET', '/pricing?data=1')).status).toBe(200)
    expect((await send('GET', '/api/jobs/?_data=x')).status).toBe(200)
  })
})
