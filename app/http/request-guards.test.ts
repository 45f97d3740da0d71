// The guards in front of Remix (decision 162): a method served by nothing answers 405 with Allow and
// words, a cookieless page write from another origin 403; everything else goes on untouched. Run
// through Express on a real socket, as the server mounts them.
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CROSS_SITE_REFUSED, isForeignPageWrite, refuseForeignPageWrites, refuseUnservedMethods } from './request-guards.server'

let port = 0
let close: () => void = () => {}

beforeAll(async () => {
  const app = express()
  app.use(refuseUnservedMethods)
  app.use(refuseForeignPageWrites)
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
    expect((await send('POST', '/login', { origin: `http://127.0.0.1:${port}` })).status).toBe(200)
    expect((await send('POST', '/login')).status).toBe(200)
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
