// Contract tests of POST /api/v1.0/removebg, written from remove.bg's public API documentation:
// the request it documents (X-Api-Key; image_file, image_file_b64 or image_url; size, type, format,
// channels, crop, crop_margin, scale, position, bg_color, bg_image_file, add_shadow, semitransparency,
// roi) and the answer (the image, or JSON by Accept; X-Width, X-Height, X-Type, X-Foreground-*,
// X-Credits-Charged; errors as {errors: [{title, code}]} with 400, 402, 403 and 429). Real model,
// real job path, real ledger.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import yauzl from 'yauzl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { apiKeyGate } from '~/features/api-keys/gate.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { resolveCaller } from '~/features/account/caller.server'
import { deduct, ensureUserAccount, getBalance, grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action, loader } from '~/routes/api.v1[.]0.removebg'
import { fixture, fileOf } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { MISSING_KEY, NO_SOURCE, REQUEST_TOO_LARGE, TYPE_UNSUPPORTED } from './adapter.server'

const PATH = '/api/v1.0/removebg'
const ROCKET = () => fixture('photos/noface-rocket.jpg') // 640 × 427
let server: http.Server
let serverUrl = ''

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
  // A picture host on loopback for image_url (allowed above; the refusal test turns it off).
  server = http.createServer((req, res) => {
    if (req.url === '/moved') return void res.writeHead(302, { location: '/rocket.jpg' }).end()
    if (req.url === '/rocket.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(ROCKET())
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

async function keyed(environment: 'live' | 'test' = 'live', credits = 50) {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: environment, environment })
  if (!made.ok) throw new Error('no key')
  const accountId = await ensureUserAccount(user.id)
  if (credits > 0) await grant({ accountId, amount: credits, kind: 'adjustment', description: 'contract tests' })
  return { accountId, key: made.key.key, ip: uniqueAddress() }
}

type Caller = Awaited<ReturnType<typeof keyed>>
let shared: Caller
async function caller() {
  shared ??= await keyed()
  return shared
}

function multipart(who: Caller | null, fields: Record<string, string | Blob>, headers: Record<string, string> = {}) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const sent: Record<string, string> = { 'x-facet-client-ip': who?.ip ?? uniqueAddress(), ...headers }
  if (who) sent['x-api-key'] = who.key
  return new Request(BASE + PATH, { method: 'POST', body: form, headers: sent })
}

async function post(request: Request) {
  return readResult(await action(routeArgs(request)))
}

const rocketFile = () => fileOf(ROCKET(), 'rocket.jpg', 'image/jpeg')

async function meta(body: ArrayBuffer) {
  return sharp(Buffer.from(body)).metadata()
}

function expectError(answer: { status: number; body: any }, status: number, code: string) {
  expect(answer.status).toBe(status)
  expect(answer.body).toEqual({ errors: [expect.objectContaining({ code, title: expect.any(String) })] })
}

describe('POST /api/v1.0/removebg: authentication and errors', () => {
  it('refuses a request without X-Api-Key with 403 in remove.bg\'s error shape', async () => {
    const answer = await post(multipart(null, { image_file: rocketFile() }))
    expectError(answer, 403, 'auth_failed')
    expect(answer.body.errors[0].title).toBe(MISSING_KEY)
  })

  it('refuses an unknown key with 403', async () => {
    const answer = await post(multipart({ key: 'fs_live_' + 'x'.repeat(40), ip: uniqueAddress(), accountId: '' }, { image_file: rocketFile() }))
    expectError(answer, 403, 'auth_failed')
  })

  it('answers 400 when no image source is given', async () => {
    const answer = await post(multipart(await caller(), { size: 'full' }))
    expectError(answer, 400, 'missing_source')
    expect(answer.body.errors[0].title).toBe(NO_SOURCE)
  })

  it('answers 400 when two image sources are given', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), image_url: `${serverUrl}/rocket.jpg` }))
    expectError(answer, 400, 'multiple_sources')
  })

  it('answers 400 for a size it does not know, and charges nothing', async () => {
    const who = await keyed()
    const answer = await post(multipart(who, { image_file: rocketFile(), size: 'gigantic' }))
    expectError(answer, 400, 'invalid_parameters')
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    expect(await getBalance(who.accountId)).toBe(50)
  })

  it('answers 400 for a size named like an object\'s own property ("constructor" is no size)', async () => {
    const who = await keyed()
    for (const size of ['constructor', '__proto__']) expectError(await post(multipart(who, { image_file: rocketFile(), size })), 400, 'invalid_parameters')
    expect(await getBalance(who.accountId)).toBe(50)
  })

  it('refuses a foreground type it cannot honour instead of ignoring it', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), type: 'person' }))
    expectError(answer, 400, 'unsupported_parameter')
    expect(answer.body.errors[0].title).toBe(TYPE_UNSUPPORTED)
  })

  it('refuses a region of interest other than the whole image', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), roi: '10% 10% 90% 90%' }))
    expectError(answer, 400, 'unsupported_parameter')
  })

  it('refuses a background colour with transparency and two backgrounds at once', async () => {
    expectError(await post(multipart(await caller(), { image_file: rocketFile(), bg_color: '81d4fa77' })), 400, 'unsupported_parameter')
    const two = await post(multipart(await caller(), { image_file: rocketFile(), bg_color: 'fff', bg_image_url: `${serverUrl}/rocket.jpg` }))
    expectError(two, 400, 'invalid_parameters')
  })

  it('answers 400 for a file that is not an image, with nothing charged', async () => {
    const who = await keyed()
    const answer = await post(multipart(who, { image_file: fileOf(Buffer.from('just text, not a picture'), 'a.txt') }))
    expectError(answer, 400, 'invalid_file_type')
    expect(await getBalance(who.accountId)).toBe(50)
  })

  it('answers 402 when the account has no credits left', async () => {
    const broke = await keyed('live', 0)
    // The day's free top-up first (a caller's first request gets it), then all of it spent.
    await resolveCaller(new Request(BASE + '/', { headers: { authorization: `Bearer ${broke.key}` } }))
    const left = await getBalance(broke.accountId)
    if (left > 0) await deduct({ accountId: broke.accountId, amount: left, description: 'spent elsewhere' })
    const answer = await post(multipart(broke, { image_file: rocketFile() }))
    expectError(answer, 402, 'insufficient_credits')
  })

  it('refuses an image_url on a private address (the webhooks\' address guard)', async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = 'false'
    resetConfigForTests()
    try {
      const who = await keyed()
      const answer = await post(multipart(who, { image_url: `${serverUrl}/rocket.jpg` }))
      expectError(answer, 400, 'failed_to_download')
      expect(answer.body.errors[0].title).toMatch(/public address/)
      expect(await getBalance(who.accountId)).toBe(50)
    } finally {
      process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
      resetConfigForTests()
    }
  })

  it('refuses a JSON body past the size limit while reading it, even without a declared length', async () => {
    const huge = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"image_file_b64":"'))
        for (let i = 0; i < 30; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(65))
        controller.enqueue(new TextEncoder().encode('"}'))
        controller.close()
      },
    })
    const request = new Request(BASE + PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': (await caller()).key, 'x-facet-client-ip': uniqueAddress() },
      body: huge,
      duplex: 'half',
    } as RequestInit)
    const answer = await post(request)
    expectError(answer, 413, 'file_too_large')
    expect(answer.body.errors[0].title).toBe(REQUEST_TOO_LARGE)
  })

  it('answers GET with 405 in the same error shape', async () => {
    const answer = await readResult(await loader())
    expectError(answer, 405, 'method_not_allowed')
  })
})

describe('POST /api/v1.0/removebg: results', () => {
  it('answers a transparent PNG at preview size (0.25 MP) by default, with remove.bg\'s headers', async () => {
    const who = await keyed()
    const answer = await post(multipart(who, { image_file: rocketFile() }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    const m = await meta(answer.body)
    expect(m.width! * m.height!).toBeLessThanOrEqual(250_000)
    expect([answer.headers.get('X-Width'), answer.headers.get('X-Height')]).toEqual([String(m.width), String(m.height)])
    expect(m.hasAlpha).toBe(true)
    expect(answer.headers.get('X-Credits-Charged')).toBe('1')
    // The job, so the caller can correct the cutout (POST /api/jobs/<id>/corrections/, decision 157).
    expect(answer.headers.get('X-Facet-Job-Id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(answer.headers.get('X-Type')).toBe('other')
    expect(answer.headers.get('X-RateLimit-Limit')).toBeTruthy()
    const left = Number(answer.headers.get('X-Foreground-Left'))
    const width = Number(answer.headers.get('X-Foreground-Width'))
    expect(left + width).toBeLessThanOrEqual(m.width!)
    expect(width).toBeGreaterThan(0)
    expect(await getBalance(who.accountId)).toBe(49)
  })

  it('answers JSON with result_b64 and the foreground box when Accept asks for JSON', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), size: 'full' }, { accept: 'application/json' }))
    expect(answer.status).toBe(200)
    const { data } = answer.body
    expect(Object.keys(data).sort()).toEqual(['foreground_height', 'foreground_left', 'foreground_top', 'foreground_width', 'result_b64'])
    const m = await sharp(Buffer.from(data.result_b64, 'base64')).metadata()
    expect([m.format, m.width, m.height]).toEqual(['png', 640, 427]) // size=full: the original resolution
    expect(data.foreground_width).toBe(Number(answer.headers.get('X-Foreground-Width')))
  })

  it('takes image_file_b64 in a JSON body', async () => {
    const request = new Request(BASE + PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': (await caller()).key, 'x-facet-client-ip': uniqueAddress() },
      body: JSON.stringify({ image_file_b64: ROCKET().toString('base64'), size: 'preview', format: 'png' }),
    })
    const answer = await post(request)
    expect(answer.status).toBe(200)
    expect((await meta(answer.body)).format).toBe('png')
  })

  it('fetches image_url server-side, following a redirect', async () => {
    const answer = await post(multipart(await caller(), { image_url: `${serverUrl}/moved`, size: 'full' }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Width')).toBe('640')
  })

  it('answers JPEG on white for format=jpg', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), format: 'jpg' }))
    expect(answer.headers.get('Content-Type')).toBe('image/jpeg')
    const m = await meta(answer.body)
    expect([m.format, m.hasAlpha]).toEqual(['jpeg', false])
  })

  it('answers JPEG for format=auto over a colour, with the colour as the background', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), bg_color: '81d4fa', crop: 'true', crop_margin: '20px' }))
    expect(answer.headers.get('Content-Type')).toBe('image/jpeg')
    const { data } = await sharp(Buffer.from(answer.body)).raw().toBuffer({ resolveWithObject: true })
    // The corner is inside the 20 px margin: background only.
    expect(Math.abs(data[0]! - 0x81)).toBeLessThan(8)
    expect(Math.abs(data[2]! - 0xfa)).toBeLessThan(8)
  })

  it('crops to the subject with crop_margin on every side', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), size: 'full', crop: 'true', crop_margin: '10px' }))
    expect(answer.status).toBe(200)
    const [width, fgLeft, fgTop, fgWidth] = ['X-Width', 'X-Foreground-Left', 'X-Foreground-Top', 'X-Foreground-Width'].map((h) => Number(answer.headers.get(h)))
    expect([fgLeft, fgTop]).toEqual([10, 10])
    expect(width).toBe(fgWidth! + 20)
  })

  it('answers the alpha matte alone for channels=alpha, hard-edged with semitransparency=false', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), size: 'full', channels: 'alpha', semitransparency: 'false' }))
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    const png = Buffer.from(answer.body)
    expect((await sharp(png).metadata()).channels).toBe(1)
    const values = new Set((await sharp(png).toColourspace('b-w').raw().toBuffer()).values())
    expect([...values].every((v) => v === 0 || v === 255)).toBe(true)
  })

  it('answers remove.bg\'s zip: color.jpg and alpha.png', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), format: 'zip' }))
    expect(answer.headers.get('Content-Type')).toBe('application/zip')
    const names = await new Promise<string[]>((resolve, reject) =>
      yauzl.fromBuffer(Buffer.from(answer.body), {}, (error, zip) => {
        if (error) return reject(error)
        const found: string[] = []
        zip.on('entry', (entry: yauzl.Entry) => found.push(entry.fileName))
        zip.on('end', () => resolve(found))
      }),
    )
    expect(names.sort()).toEqual(['alpha.png', 'color.jpg'])
  })

  it('puts the subject over bg_image_file, sized to cover', async () => {
    const backdrop = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#00ff00' } }).png().toBuffer()
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), bg_image_file: fileOf(backdrop, 'green.png', 'image/png'), format: 'png' }))
    expect(answer.status).toBe(200)
    const m = await meta(answer.body)
    const { data, info } = await sharp(Buffer.from(answer.body)).raw().toBuffer({ resolveWithObject: true })
    expect(m.width).toBe(Number(answer.headers.get('X-Width')))
    // The top-left corner of the rocket photo is sky: background there.
    expect([data[0], data[1], data[2]]).toEqual([0, 255, 0])
    expect(info.channels).toBeGreaterThanOrEqual(3)
  })

  it('scales the subject (scale=50%) and centres it', async () => {
    const answer = await post(multipart(await caller(), { image_file: rocketFile(), size: 'full', scale: '50%' }))
    const [width, height, fgWidth, fgHeight] = ['X-Width', 'X-Height', 'X-Foreground-Width', 'X-Foreground-Height'].map((h) => Number(answer.headers.get(h)))
    expect([width, height]).toEqual([640, 427])
    expect(fgWidth! <= 320 && fgHeight! <= 214).toBe(true)
    expect(fgWidth === 320 || fgHeight === 214 || fgHeight === 213).toBe(true)
  })

  it('adds a shadow under the subject (add_shadow=true) without changing the layout', async () => {
    const plain = await post(multipart(await caller(), { image_file: rocketFile(), bg_color: 'fff', format: 'png' }))
    const shadowed = await post(multipart(await caller(), { image_file: rocketFile(), bg_color: 'fff', format: 'png', add_shadow: 'true' }))
    expect(shadowed.status).toBe(200)
    expect(shadowed.headers.get('X-Foreground-Top')).toBe(plain.headers.get('X-Foreground-Top'))
    const sum = async (body: ArrayBuffer) => (await sharp(Buffer.from(body)).stats()).channels[0]!.sum
    // A shadow only darkens.
    expect(await sum(shadowed.body)).toBeLessThan(await sum(plain.body))
  })

  it('charges nothing on a test key and says so', async () => {
    const who = await keyed('test', 0)
    const answer = await post(multipart(who, { image_file: rocketFile() }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
  })

  it('answers 429 past the key\'s rate limit, with Retry-After', async () => {
    const who = await keyed()
    // The key's whole budget for the minute, spent through the same gate.
    while (!(await apiKeyGate(`Bearer ${who.key}`))?.refusal);
    const answer = await post(multipart(who, { image_file: rocketFile() }))
    expectError(answer, 429, 'rate_limit_exceeded')
    expect(answer.headers.get('Retry-After')).toBeTruthy()
    expect(answer.headers.get('X-RateLimit-Remaining')).toBe('0')
  })
})
