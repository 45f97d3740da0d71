// Attacks on what every endpoint reads first: the body's size and shape, and the headers that name
// a caller (Authorization, X-Team, Idempotency-Key). Each must end in a clear 4xx, never a 500 or a
// body held whole in memory, and the server keeps serving.
import http from 'node:http'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { createSession } from '~/features/auth/session.server'
import { createVerifiedUser, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { stopBoss } from '~/features/queue/boss.server'
import { BODY_TOO_LARGE_MESSAGE, LENGTH_REQUIRED_MESSAGE, SMALL_BODY_LIMIT_BYTES } from '~/features/security/body-limit.server'
import * as loginRoute from '~/routes/api.auth.login'
import * as removeBgRoute from '~/routes/api.remove-bg'
import { action as register } from '~/routes/api.auth.register'
import { loader as balance } from '~/routes/api.credits.balance'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { BASE, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { startStudio, type RunningStudio } from '../../../tests/support/studio-server'
import { fileOf, fixture, toolRequest } from '../../../tests/support/tools'

const studios: RunningStudio[] = []
afterEach(async () => {
  for (const studio of studios.splice(0)) await studio.close()
  delete process.env.TRUST_PROXY
  resetConfigForTests()
})
afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

/**
 * The studio's real HTTP path (every middleware, the body limit among them) in front of the real sign-in
 * action and the remover's endpoint. One proxy hop trusted, so each raw request names a client address
 * of its own (sign-in's per-address limit is not what is tested here).
 */
async function startApp(): Promise<{ host: string; port: number }> {
  process.env.TRUST_PROXY = '1'
  resetConfigForTests()
  const studio = await startStudio({ 'api/auth/login': loginRoute, 'api/remove-bg': removeBgRoute })
  studios.push(studio)
  return { host: studio.host, port: studio.port }
}

/** A raw request: declared headers as given, `sent` bytes written, the answer read without waiting for the rest. */
function raw(target: { host: string; port: number }, path: string, headers: Record<string, string>, sent: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ ...target, path, method: 'POST', headers: { 'x-forwarded-for': uniqueAddress(), ...headers } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (c: Buffer) => chunks.push(c))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
    })
    // The server may answer and close before reading everything: that is the point.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)))
    request.write(sent)
    if (!headers['content-length'] || Number(headers['content-length']) === sent.byteLength) request.end()
  })
}

describe('body limits before any route reads a body whole', () => {
  it('a JSON body declared over 1 MB to the sign-in endpoint answers 413 before it is read', async () => {
    const target = await startApp()
    const answer = await raw(target, '/api/auth/login/', { 'content-type': 'application/json', 'content-length': String(SMALL_BODY_LIMIT_BYTES * 512) }, Buffer.alloc(64 * 1024, 0x20))
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body).error).toBe(BODY_TOO_LARGE_MESSAGE)
  })

  it('a streamed (chunked) JSON body answers 411; a multipart body to a non-upload endpoint is held to 1 MB too', async () => {
    const target = await startApp()
    const chunked = await raw(target, '/api/auth/login/', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, Buffer.from('{"email":'))
    expect(chunked.status).toBe(411)
    expect(JSON.parse(chunked.body).error).toBe(LENGTH_REQUIRED_MESSAGE)
    const multipart = await raw(target, '/api/auth/login/', { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(SMALL_BODY_LIMIT_BYTES + 1) }, Buffer.alloc(1024))
    expect(multipart.status).toBe(413)
  })

  it('an ordinary sign-in reaches its action, and an upload to a tool endpoint passes on to the tool’s own limits', async () => {
    const target = await startApp()
    const body = Buffer.from(JSON.stringify({ email: uniqueEmail(), password: 'not-the-password' }))
    const signIn = await raw(target, '/api/auth/login/', { 'content-type': 'application/json', 'content-length': String(body.byteLength) }, body)
    expect(signIn.status).toBe(400)
    const upload = Buffer.alloc(SMALL_BODY_LIMIT_BYTES + 10)
    const tool = await raw(target, '/api/remove-bg/', { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(upload.byteLength) }, upload)
    // Past the 1 MB limit of other endpoints: the remover's own reading answers (no file in that body).
    expect(tool.status).toBe(400)
    expect(JSON.parse(tool.body).error).not.toBe(BODY_TOO_LARGE_MESSAGE)
  })
})

describe('JSON bodies of the wrong shape', () => {
  it('__proto__ in a body pollutes nothing, and arrays, null and numbers answer 400', async () => {
    const headers = { 'x-facet-client-ip': uniqueAddress() }
    const polluting = JSON.parse(`{"email":"${uniqueEmail()}","password":"long-enough-password","__proto__":{"polluted":true,"email_verified_at":"2020-01-01"}}`)
    const answer = await readResult(await register(routeArgs(jsonRequest('/api/auth/register/', polluting, { headers }))))
    expect(answer.status).toBe(201)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    for (const body of [[1, 2], null, 42, 'text']) {
      const refused = await readResult(await loginRoute.action(routeArgs(jsonRequest('/api/auth/login/', body, { headers: { 'x-facet-client-ip': uniqueAddress() } }))))
      expect(refused.status).toBe(400)
    }
  })
})

describe('headers that name a caller', () => {
  const garbage = ['Bearer ', 'Bearer fs_live_' + 'x'.repeat(5000), "Token ' OR 1=1 --", 'Token \u0000\u202e', 'Bearer fs_test_ünïcødé', 'Basic Zm9vOmJhcg==', 'Token']

  it('a malformed Authorization header is a clear 401 (or no sign-in at all), never a 500', async () => {
    for (const authorization of garbage) {
      let headers: Headers
      try {
        headers = new Headers({ authorization, 'x-facet-client-ip': uniqueAddress() })
      } catch {
        continue // a value no HTTP client can send (a NUL byte)
      }
      const answer = await readResult(await balance(routeArgs(new Request(`${BASE}/api/credits/balance/`, { headers }))))
      expect([200, 401]).toContain(answer.status)
      if (answer.status === 200) expect(answer.body.source).toBe('visitor')
    }
  })

  it('X-Team that is not a team id, or names a team the caller is not in, is 403 and charges nothing', async () => {
    const { user } = await createVerifiedUser()
    const { token } = await createSession(user.id)
    for (const team of ['not-a-uuid', "'; DROP TABLE teams; --", 'x'.repeat(4000), '00000000-0000-0000-0000-000000000000']) {
      const answer = await readResult(await balance(routeArgs(new Request(`${BASE}/api/credits/balance/`, { headers: { authorization: `Token ${token}`, 'x-team': team } }))))
      expect(answer.status).toBe(403)
    }
  })

  it('an Idempotency-Key over 200 characters answers 400 before anything is charged', async () => {
    const { user } = await createVerifiedUser()
    const { token } = await createSession(user.id)
    const request = toolRequest('/api/face-blur/blur/', { image: fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'f.jpg', 'image/jpeg'), blur: '20' }, {
      authorization: `Token ${token}`,
      'idempotency-key': 'k'.repeat(201),
      'x-facet-client-ip': uniqueAddress(),
    })
    const answer = await readResult(await blurAction(routeArgs(request)))
    expect(answer.status).toBe(400)
    expect(answer.headers.get('x-credits-charged')).toBe('0')
  })
})
