// Free credits a script cannot multiply (issue 19, decision 080): cookie-less calls to a real tool
// endpoint through the studio's real HTTP path (server.ts's Express application, every middleware in its
// order, with TRUST_PROXY as each test sets it). Every call drops its cookie, so each one asks for a new
// visitor; the free runs that get through are counted from the answers (X-Credits-Charged) and bounded by
// the address budget.
import { randomBytes } from 'node:crypto'
import { Agent, FormData, fetch } from 'undici'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { config, resetConfigForTests } from '~/config.server'
import { uniqueAddress } from '~/features/auth/testing.server'
import { guestDailyBudget, signUpUrl } from '~/features/credits/visitor.server'
import { stopBoss } from '~/features/queue/boss.server'
import { consumeRateLimit } from '~/features/security/rate-limit.server'
import { TOOL_RUN_RATE } from '~/features/tools/submission.server'
import * as blurRoute from '~/routes/api.face-blur.blur'
import { startStudio, type RunningStudio } from '../../../tests/support/studio-server'
import { fixture } from '../../../tests/support/tools'

const studios: RunningStudio[] = []
afterEach(async () => {
  for (const studio of studios.splice(0)) await studio.close()
  delete process.env.TRUST_PROXY
  resetConfigForTests()
})
afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

/** The studio's own app with `TRUST_PROXY=trustProxy`, serving the blurrer's endpoint. */
async function startApp(trustProxy: string): Promise<string> {
  process.env.TRUST_PROXY = trustProxy
  resetConfigForTests()
  const studio = await startStudio({ 'api/face-blur/blur': blurRoute })
  studios.push(studio)
  return studio.url
}

const face = fixture('photos/degraded-face-crop-64px.jpg')

/**
 * A loopback address of this test's own to call from: a direct peer that is always 127.0.0.1 would share
 * its daily guest budget with every other loopback caller on the machine (earlier runs the same UTC day
 * included), and find it spent.
 */
function fromOwnLoopbackAddress(): Agent {
  const b = randomBytes(3)
  return new Agent({ localAddress: `127.${b[0]}.${b[1]}.${Math.max(2, b[2]!)}` })
}

/** One cookie-less call, as `curl -F image=@face.jpg` sends it. */
async function blur(base: string, headers: Record<string, string> = {}, dispatcher?: Agent) {
  const form = new FormData()
  form.append('image', new File([new Uint8Array(face)], 'face.jpg', { type: 'image/jpeg' }))
  form.append('blur', '20')
  const response = await fetch(`${base}/api/face-blur/blur/`, { method: 'POST', body: form, headers, dispatcher })
  const body = response.headers.get('content-type')?.includes('json') ? ((await response.json()) as { error: string }) : null
  return { status: response.status, charged: Number(response.headers.get('x-credits-charged') ?? 0), retryAfter: response.headers.get('retry-after'), error: body?.error ?? null }
}

async function fiftyCalls(base: string, headers: () => Record<string, string>, dispatcher?: Agent) {
  const answers = []
  for (let i = 0; i < 50; i++) answers.push(await blur(base, headers(), dispatcher))
  return answers
}

function expectBounded(answers: Awaited<ReturnType<typeof blur>>[]) {
  const freeRuns = answers.filter((a) => a.status === 200).reduce((sum, a) => sum + a.charged, 0)
  expect(freeRuns).toBeGreaterThan(0)
  expect(freeRuns).toBeLessThanOrEqual(guestDailyBudget())
  // Every refusal says what to do: sign up (with the address), or when the credits renew.
  const refused = answers.filter((a) => a.status !== 200)
  expect(refused.length).toBeGreaterThan(0)
  for (const answer of refused) {
    expect(answer.status).toBe(402)
    expect(answer.error).toContain(signUpUrl())
    expect(answer.error).toMatch(/come back after \d{4}-\d{2}-\d{2} 00:00:00 UTC/)
    expect(Number(answer.retryAfter)).toBeGreaterThan(0)
    expect(Number(answer.retryAfter)).toBeLessThanOrEqual(24 * 60 * 60)
  }
  return freeRuns
}

describe('cookie-less calls from one address', () => {
  it('50 calls from one address: at most the address budget runs free, each call minting at most one identity', async () => {
    const base = await startApp('1')
    const client = uniqueAddress()
    const freeRuns = expectBounded(await fiftyCalls(base, () => ({ 'x-forwarded-for': client })))
    // Each call dropped its cookie: one run per identity the address may mint.
    expect(freeRuns).toBe(config().GUEST_IDENTITIES_PER_ADDRESS)
  })

  it('50 calls with a rotating first X-Forwarded-For entry behind one trusted proxy count as one address', async () => {
    const base = await startApp('1')
    const proxyReported = uniqueAddress()
    expectBounded(await fiftyCalls(base, () => ({ 'x-forwarded-for': `${uniqueAddress()}, ${proxyReported}` })))
  })

  it('50 calls with a rotating X-Forwarded-For from an untrusted direct peer count as the peer', async () => {
    const base = await startApp('false')
    const peer = fromOwnLoopbackAddress()
    expectBounded(await fiftyCalls(base, () => ({ 'x-forwarded-for': uniqueAddress() }), peer))
    await peer.close()
  })
})

describe('too many runs in a short time', () => {
  it('429 names the UTC time its Retry-After points at', async () => {
    const base = await startApp('1')
    const client = uniqueAddress()
    await consumeRateLimit(TOOL_RUN_RATE, client, TOOL_RUN_RATE.points)
    const before = Date.now()
    const answer = await blur(base, { 'x-forwarded-for': client })
    const after = Date.now()
    expect(answer.status).toBe(429)
    const at = Date.parse(answer.error!.match(/Try again after (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC\./)![1]!.replace(' ', 'T') + 'Z')
    const retryMs = Number(answer.retryAfter) * 1000
    // The server's clock read between `before` and `after`, plus Retry-After, printed to the second
    // (rounded down): exact bounds, however long the request took.
    expect(at).toBeGreaterThan(before + retryMs - 1000)
    expect(at).toBeLessThanOrEqual(after + retryMs)
  })
})

describe('operator switches for visitors', () => {
  afterEach(() => {
    delete process.env.GUEST_RUNS
    delete process.env.API_REQUIRES_SIGNUP
    resetConfigForTests()
  })

  it('GUEST_RUNS=off: a visitor is told to sign up (401), and nothing is written', async () => {
    process.env.GUEST_RUNS = 'off'
    resetConfigForTests()
    const base = await startApp('1')
    const answer = await blur(base, { 'x-forwarded-for': uniqueAddress() })
    expect(answer.status).toBe(401)
    expect(answer.error).toContain(signUpUrl())
    expect(answer.charged).toBe(0)
  })

  it('API_REQUIRES_SIGNUP: a cookie-less, key-less API call answers 401 naming sign-up and keys; a studio page is not refused', async () => {
    process.env.API_REQUIRES_SIGNUP = 'true'
    resetConfigForTests()
    const base = await startApp('1')
    const api = await blur(base, { 'x-forwarded-for': uniqueAddress() })
    expect(api.status).toBe(401)
    expect(api.error).toContain(signUpUrl())
    expect(api.error).toContain('API key')
    // The studio's own page, enhanced with JavaScript, posts same-origin: it is a visitor, not an API client.
    const page = await blur(base, { 'x-forwarded-for': uniqueAddress(), 'sec-fetch-site': 'same-origin' })
    expect(page.status).toBe(200)
    expect(page.charged).toBe(1)
  })
})
