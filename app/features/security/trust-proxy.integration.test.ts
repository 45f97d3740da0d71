// Client addresses behind proxies, through a real Express app on 127.0.0.1 with the studio's own
// `trust proxy` setting (parseTrustProxy) and client-address middleware, in front of the real
// sign-in action and its rate limits. Forged X-Forwarded-For chains must not buy fresh budgets.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { parseTrustProxy } from '~/config.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { CLIENT_ADDRESS_HEADER, passClientAddress } from '~/features/security/client-address.server'
import { action as loginAction } from '~/routes/login'
import { routeArgs } from '../../../tests/support/requests'

const servers: Array<{ close: () => void }> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

/** A studio-shaped Express app: trust proxy, the client-address header, then the login action. */
async function startApp(trustProxy: string): Promise<string> {
  const app = express()
  app.set('trust proxy', parseTrustProxy(trustProxy))
  app.use(passClientAddress)
  app.get('/whoami', (req, res) => {
    res.json({ address: req.headers[CLIENT_ADDRESS_HEADER] })
  })
  app.post('/login', async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value)
    const request = new Request(`http://localhost${req.url}`, { method: 'POST', headers, body: Buffer.concat(chunks) })
    const result = (await loginAction(routeArgs(request))) as unknown
    const status = result instanceof Response ? result.status : ((result as { init?: { status?: number } }).init?.status ?? 200)
    res.status(status).end()
  })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function whoami(base: string, headers: Record<string, string>) {
  const response = await fetch(`${base}/whoami`, { headers })
  return ((await response.json()) as { address: string }).address
}

describe('TRUST_PROXY', () => {
  it('one trusted hop: 15 wrong passwords with a rotating first X-Forwarded-For entry hit 429', async () => {
    const base = await startApp('1')
    const { user } = await createVerifiedUser()
    const proxyReported = uniqueAddress()
    const statuses: number[] = []
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'x-forwarded-for': `${uniqueAddress()}, ${proxyReported}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ intent: 'login', email: user.email, password: `wrong-password-${i}` }),
      })
      statuses.push(response.status)
    }
    // The per-email budget is 10 tries per address: the forged entries never reset it.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400))
    expect(statuses.slice(10)).toEqual(Array(5).fill(429))
  })

  it('`true` means one hop, not every hop', async () => {
    const base = await startApp('true')
    expect(await whoami(base, { 'x-forwarded-for': '203.0.113.66, 198.51.100.20' })).toBe('198.51.100.20')
  })

  it('a number of hops takes the entry that many hops in from the right', async () => {
    const base = await startApp('2')
    expect(await whoami(base, { 'x-forwarded-for': '203.0.113.66, 198.51.100.20, 10.0.0.5' })).toBe('198.51.100.20')
    // A shorter chain than promised cannot point past its own start.
    expect(await whoami(base, { 'x-forwarded-for': '198.51.100.21' })).toBe('198.51.100.21')
  })

  it('a list of proxy addresses: the first address from the right that is not a proxy', async () => {
    const base = await startApp('loopback, 10.0.0.0/8')
    expect(await whoami(base, { 'x-forwarded-for': '203.0.113.66, 198.51.100.30, 10.1.2.3, 10.9.9.9' })).toBe('198.51.100.30')
  })

  it('no trusted proxy: the connection address, whatever the headers say', async () => {
    const base = await startApp('false')
    const address = await whoami(base, { 'x-forwarded-for': '203.0.113.66', [CLIENT_ADDRESS_HEADER]: '203.0.113.77' })
    expect(address).toMatch(/^(::ffff:)?127\.0\.0\.1$/)
  })

  it('the header route code reads is always the server’s, never the client’s', async () => {
    const base = await startApp('1')
    expect(await whoami(base, { 'x-forwarded-for': '198.51.100.40', [CLIENT_ADDRESS_HEADER]: '203.0.113.77' })).toBe('198.51.100.40')
  })
})
