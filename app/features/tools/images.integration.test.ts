// The model-based /api tools through their route modules, with the real models and small fixtures.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { consumeRateLimit } from '~/features/security/rate-limit.server'
import { MEGABYTE } from '~/catalog/tools'
import { TOOL_RUN_RATE } from '~/features/tools/submission.server'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { action as enhanceAction } from '~/routes/api.image-scaler.scale'
import { action as removeBgAction } from '~/routes/api.remove-bg'
import { loader as healthz } from '~/routes/healthz'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, fixture, newVisitor, randomIp, toolRequest, type TestCaller } from '../../../tests/support/tools'

type Action = typeof blurAction

async function call(run: Action, apiPath: string, caller: TestCaller | null, fields: Record<string, string | Blob>) {
  const headers = caller?.headers ?? { 'x-facet-client-ip': randomIp() }
  return readResult(await run(routeArgs(toolRequest(apiPath, fields, headers))))
}
const blur = (caller: TestCaller | null, fields: Record<string, string | Blob>) => call(blurAction, '/api/face-blur/blur/', caller, fields)
const photo = (name: string, as = name) => fileOf(fixture(`photos/${name}`), as)

/** A PNG whose header claims 30000×30000 pixels: tiny on disk, 3.6 GB if decoded. */
async function pixelBomb(): Promise<Buffer> {
  const png = Buffer.from(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } }).png().toBuffer())
  png.writeUInt32BE(30000, 16)
  png.writeUInt32BE(30000, 20)
  return png
}

async function rawPixels(bytes: Buffer | ArrayBuffer) {
  return sharp(Buffer.from(bytes as ArrayBuffer)).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
}

afterEach(() => {
  delete process.env.MODELS_DIR
  resetConfigForTests()
})

describe('POST /api/face-blur/blur/', () => {
  it('blurs a face, charges one credit and says how many faces it found', async () => {
    const visitor = await newVisitor()
    const answer = await blur(visitor, { image: photo('degraded-face-astronaut-128px-q35.jpg'), blur: '32' })
    expect(answer.status).toBe(200)
    // A JPEG in, a JPEG out by default (decision 173): the type and the name's extension say so.
    expect(answer.headers.get('content-type')).toBe('image/jpeg')
    expect(Number(answer.headers.get('X-Faces-Found'))).toBeGreaterThanOrEqual(1)
    expect(answer.headers.get('X-Credits-Remaining')).toBe('4')
    expect(await balanceOf(visitor)).toBe(4)
    expect(answer.headers.get('content-disposition')).toContain('filename="face-blurred.jpg"')
  })

  it('no face: 200 with the picture unchanged, X-Faces-Found 0, no metadata and no credit charged', async () => {
    const visitor = await newVisitor()
    const withExif = await sharp(fixture('photos/noface-cat-chelsea.png'))
      .withMetadata({ exif: { IFD0: { Artist: 'Somebody', Copyright: 'Secret' } } })
      .png()
      .toBuffer()
    expect((await sharp(withExif).metadata()).exif).toBeDefined()
    const answer = await blur(visitor, { image: fileOf(withExif, 'cat.png'), blur: '12' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Faces-Found')).toBe('0')
    expect(answer.headers.get('X-Credits-Remaining')).toBe('5')
    expect(await balanceOf(visitor)).toBe(5)
    const out = Buffer.from(answer.body)
    const meta = await sharp(out).metadata()
    expect([meta.exif, meta.xmp, meta.iptc]).toEqual([undefined, undefined, undefined])
    const [before, after] = await Promise.all([rawPixels(withExif), rawPixels(out)])
    expect(after.info.width).toBe(before.info.width)
    expect(after.data.equals(before.data)).toBe(true)
    const run = await getDb().selectFrom('tool_runs').select(['outcome']).where('account_id', '=', visitor.accountId).executeTakeFirstOrThrow()
    expect(run.outcome).toBe('no_face')
  })

  it('a first-time visitor gets the visitor cookie with the answer', async () => {
    const answer = await blur(null, { image: photo('noface-coffee.png'), blur: '20' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('set-cookie')).toMatch(/^fs_visitor=/)
    expect(answer.headers.get('X-Credits-Remaining')).toBe('5')
  })

  it('answers each bad input with its clear error, charges nothing, and keeps serving', async () => {
    const visitor = await newVisitor()
    const truncated = fixture('photos/noface-coffee.png').subarray(0, 5000)
    const cases: Array<[string, Record<string, string | Blob>, number, RegExp]> = [
      ['missing image', { blur: '32' }, 400, /Choose an image/],
      ['empty file', { image: fileOf(Buffer.alloc(0), 'empty.png'), blur: '32' }, 400, /^The uploaded file is empty\.$/],
      ['truncated PNG', { image: fileOf(truncated, 'cut.png'), blur: '32' }, 400, /damaged or truncated/],
      ['wrong magic bytes', { image: fileOf(Buffer.from('this is not a picture at all, only text'), 'photo.jpg', 'image/jpeg'), blur: '32' }, 415, /^Invalid file type\. Upload a PNG, JPG or WebP image\.$/],
      ['TIFF (not accepted here)', { image: fileOf(await sharp(fixture('photos/degraded-face-crop-64px.jpg')).tiff().toBuffer(), 'a.png'), blur: '32' }, 415, /Invalid file type/],
      ['pixel bomb', { image: fileOf(await pixelBomb(), 'bomb.png'), blur: '32' }, 413, /Image too large: 30000×30000 pixels/],
      ['blur below range', { image: photo('degraded-face-crop-64px.jpg'), blur: '10' }, 400, /^blur must be a number from 12 to 60 in steps of 2\.$/],
      ['blur above range', { image: photo('degraded-face-crop-64px.jpg'), blur: '62' }, 400, /^blur must be/],
      ['blur off step', { image: photo('degraded-face-crop-64px.jpg'), blur: '13' }, 400, /^blur must be/],
      ['blur not a number', { image: photo('degraded-face-crop-64px.jpg'), blur: 'lots' }, 400, /^blur must be/],
      ['blur missing', { image: photo('degraded-face-crop-64px.jpg') }, 400, /^blur must be/],
      ['oversized upload', { image: fileOf(Buffer.alloc(15 * MEGABYTE + 1), 'huge.png'), blur: '32' }, 413, /^File too large \(max 15MB\)$/],
    ]
    for (const [name, fields, status, message] of cases) {
      const answer = await blur(visitor, fields)
      expect([name, answer.status]).toEqual([name, status])
      expect(answer.body, name).toEqual({ error: expect.stringMatching(message), detail: expect.stringMatching(message), remaining: 5 })
      expect(answer.headers.get('X-Credits-Remaining'), name).toBe('5')
    }
    expect(await balanceOf(visitor)).toBe(5)
    const rejected = await getDb()
      .selectFrom('tool_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', visitor.accountId)
      .where('outcome', '=', 'rejected')
      .executeTakeFirstOrThrow()
    expect(rejected.n).toBe(cases.length)
    // Refused before the ledger was touched, except the truncated PNG: only decoding it finds the
    // damage. Run inline (decision 176) it is charged with its outcome, so never; through the queue
    // (when the learned run time puts it over INLINE_RUN_MS) it was charged at admission and refunded.
    const entries = await getDb()
      .selectFrom('credit_transactions')
      .select(['kind', 'delta'])
      .where('account_id', '=', visitor.accountId)
      .where('kind', 'in', ['consume', 'adjustment'])
      .orderBy('id')
      .execute()
    expect([[], [{ kind: 'consume', delta: -1 }, { kind: 'adjustment', delta: 1 }]]).toContainEqual(entries)

    const fine = await blur(visitor, { image: photo('degraded-face-crop-64px.jpg'), blur: '60' })
    expect(fine.status).toBe(200)
  })

  it('too many runs from one caller: 429 with Retry-After and the balance, nothing charged', async () => {
    const visitor = await newVisitor()
    await consumeRateLimit(TOOL_RUN_RATE, visitor.accountId, TOOL_RUN_RATE.points)
    const answer = await blur(visitor, { image: photo('degraded-face-crop-64px.jpg'), blur: '32' })
    expect(answer.status).toBe(429)
    expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
    expect(answer.body).toEqual({ error: expect.stringMatching(/Too many runs/), detail: expect.stringMatching(/Too many runs/), remaining: 5 })
    expect(await balanceOf(visitor)).toBe(5)
  })

  it('a missing model: 503 naming it and `npm run models`, before anything is charged', async () => {
    const visitor = await newVisitor()
    process.env.MODELS_DIR = mkdtempSync(path.join(os.tmpdir(), 'no-models-'))
    resetConfigForTests()
    const answer = await blur(visitor, { image: photo('degraded-face-crop-64px.jpg'), blur: '32' })
    expect(answer.status).toBe(503)
    expect(answer.body.error).toMatch(/face-yunet-n-dynamic\.onnx.*npm run models/)
    expect(answer.body.remaining).toBe(5)
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('POST /api/remove-bg/', () => {
  const removeBg = (caller: TestCaller | null, fields: Record<string, string | Blob>) =>
    call(removeBgAction, '/api/remove-bg/', caller, fields)

  it('cuts out a product at its original size with alpha', async () => {
    const visitor = await newVisitor()
    const answer = await removeBg(visitor, { image: photo('product-router-alpha-groundtruth.png') })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Remaining')).toBe('4')
    expect(answer.headers.get('content-disposition')).toContain('filename="background-removed.png"')
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 220, 203, true])
  })

  it('a background colour is validated (400, no charge) and names the cutout', async () => {
    const visitor = await newVisitor()
    const bad = await removeBg(visitor, { image: photo('degraded-face-crop-64px.jpg'), background: 'chartreuse' })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^background must be a colour/)
    expect(await balanceOf(visitor)).toBe(5)
    const ok = await removeBg(visitor, { image: photo('degraded-face-crop-64px.jpg'), background: '#10B981' })
    expect(ok.status).toBe(200)
    // Over a colour the cutout is opaque: a JPEG upload's comes back as a JPEG (decision 173).
    expect(ok.headers.get('content-disposition')).toContain('filename="cutout-10b981.jpg"')
  })

  it('a form without JavaScript picks a custom colour with background=custom; a named preset is cutout.jpg (of a JPEG)', async () => {
    const visitor = await newVisitor()
    const custom = await removeBg(visitor, { image: photo('degraded-face-crop-64px.jpg'), background: 'custom', background_custom: '#F59E0B' })
    expect(custom.status).toBe(200)
    expect(custom.headers.get('content-disposition')).toContain('filename="cutout-f59e0b.jpg"')
    const corner = await sharp(Buffer.from(custom.body)).raw().toBuffer({ resolveWithObject: true })
    // The colour, within a JPEG's rounding (its chroma is shared by 2×2 pixels).
    for (const [channel, value] of [0xf5, 0x9e, 0x0b].entries()) expect(Math.abs(corner.data[channel]! - value)).toBeLessThanOrEqual(12)
    const preset = await removeBg(visitor, { image: photo('degraded-face-crop-64px.jpg'), background: 'black' })
    expect(preset.headers.get('content-disposition')).toContain('filename="cutout.jpg"')
    const invalid = await removeBg(visitor, { image: photo('degraded-face-crop-64px.jpg'), background: 'custom', background_custom: 'f59e0b' })
    expect(invalid.status).toBe(400)
  })

  it('refuses a 12 MB+ upload with the spec message', async () => {
    const answer = await removeBg(null, { image: fileOf(Buffer.alloc(12 * MEGABYTE + 1), 'big.jpg') })
    expect(answer.status).toBe(413)
    expect(answer.body.error).toBe('File too large (max 12MB)')
  })
})

describe('POST /api/image-scaler/scale/', () => {
  it('enhances a small photo, charges two credits, and names it in both filename forms', async () => {
    const visitor = await newVisitor()
    const answer = await call(enhanceAction, '/api/image-scaler/scale/', visitor, {
      image: photo('degraded-face-crop-64px.jpg', 'visage été.jpg'),
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="visage _t_-enhanced.jpg"; filename*=UTF-8''visage%20%C3%A9t%C3%A9-enhanced.jpg`,
    )
    expect(answer.headers.get('X-Credits-Remaining')).toBe('3')
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect(meta.format).toBe('jpeg')
    expect(meta.width!).toBeGreaterThan(64)
  })

  it('accepts TIFF and refuses WebP (415)', async () => {
    const visitor = await newVisitor()
    const webp = await sharp(fixture('photos/degraded-face-crop-64px.jpg')).webp().toBuffer()
    const refused = await call(enhanceAction, '/api/image-scaler/scale/', visitor, { image: fileOf(webp, 'x.webp') })
    expect(refused.status).toBe(415)
    expect(refused.body.error).toBe('Invalid file type. Upload a PNG, JPG or TIFF image.')
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('GET /healthz', () => {
  it('lists the models and whether each is installed, with the run queue', async () => {
    // From the machine itself (loopback, not forwarded): the details, the queue among them (decision 162).
    const { status, body } = await readResult(await healthz(routeArgs(new Request(`${BASE}/healthz`, { headers: { 'x-facet-client-ip': '127.0.0.1' } }))))
    expect(status).toBe(200)
    expect(body.models).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'yunet', file: 'face-yunet-n-dynamic.onnx', installed: true, optional: false })]),
    )
    // The queue's depth as the table has it (files before this one in the worker may have left jobs).
    const jobs = await getDb().selectFrom('tool_jobs').select('status').where('status', 'in', ['queued', 'running']).execute()
    expect(body.queue).toMatchObject({
      waiting: jobs.filter((j) => j.status === 'queued').length,
      running: jobs.filter((j) => j.status === 'running').length,
    })
  })
})
