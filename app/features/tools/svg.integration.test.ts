// POST /api/svg2image/convert/ through the route module, with real multipart bodies.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { charge } from '~/features/credits/ledger.server'
import { MEGABYTE } from '~/catalog/tools'
import { resetConfigForTests } from '~/config.server'
import { renderTimes } from '~/features/jobs/runs.server'
import { LIBRSVG_NOTE, resetSvgRenderersForTests } from '~/features/tools/svg-converter.server'
import { RENDERER_FAILED_MESSAGE } from '~/features/tools/svg-renderer-pool.server'
import { SVG_SIGN_IN_MESSAGE } from '~/features/tools/submission.server'
import { action } from '~/routes/api.svg2image.convert'
import { readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, fixture, newUser, newVisitor, randomIp, toolRequest, type TestCaller } from '../../../tests/support/tools'

const PATH = '/api/svg2image/convert/'
const svgFile = (text: string | Buffer, name = 'drawing.svg') => fileOf(Buffer.from(text), name, 'image/svg+xml')
const square = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#0a0"/></svg>'

/** A blur over 3000 px: whole canvases in both renderers, more than either has in 256 MB. */
const blurred = `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feGaussianBlur stdDeviation="2"/></filter><rect width="3000" height="3000" fill="#0a0" filter="url(#f)"/></svg>`

/** Runs `work` with renderers limited to 256 MB of memory, then restores the configured pool. */
async function withSmallRenderers<T>(work: () => Promise<T>): Promise<T> {
  process.env.SVG_RENDERER_MEMORY_MB = '256'
  resetConfigForTests()
  resetSvgRenderersForTests()
  try {
    return await work()
  } finally {
    delete process.env.SVG_RENDERER_MEMORY_MB
    resetConfigForTests()
    resetSvgRenderersForTests()
  }
}

async function convert(caller: TestCaller | null, fields: Record<string, string | Blob>, extraHeaders: Record<string, string> = {}) {
  const headers = { 'x-facet-client-ip': randomIp(), ...(caller?.headers ?? {}), ...extraHeaders }
  return readResult(await action(routeArgs(toolRequest(PATH, fields, headers))))
}

describe('POST /api/svg2image/convert/', () => {
  it('is for signed-in users only: a visitor gets 401 with the sign-in message and is not charged', async () => {
    const visitor = await newVisitor()
    const answer = await convert(visitor, { svg: svgFile(square), format: 'png', scale: '1' })
    expect(answer.status).toBe(401)
    expect(answer.body).toEqual({ error: SVG_SIGN_IN_MESSAGE, detail: SVG_SIGN_IN_MESSAGE, remaining: 5 })
    expect(answer.headers.get('X-Credits-Remaining')).toBe('5')
    expect(await balanceOf(visitor)).toBe(5)

    const anonymous = await convert(null, { svg: svgFile(square), format: 'png', scale: '1' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('set-cookie')).toBeNull()

    const badToken = await convert(null, { svg: svgFile(square), format: 'png', scale: '1' }, { authorization: 'Token nope' })
    expect(badToken.status).toBe(401)
  })

  it('converts a fixture at 2× to PNG, charges one credit, names the file and records the run', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    const answer = await convert(user, { svg: fileOf(fixture('svg/tango-user-home.svg'), 'tango-user-home.svg'), format: 'png', scale: '2' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="tango-user-home.png"; filename*=UTF-8''tango-user-home.png`,
    )
    expect(answer.headers.get('X-Credits-Remaining')).toBe(String(before - 1))
    expect(await balanceOf(user)).toBe(before - 1)
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect([meta.width, meta.height, meta.hasAlpha, meta.exif]).toEqual([96, 96, true, undefined])

    const run = await getDb()
      .selectFrom('tool_runs')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(run).toMatchObject({ tool: 'svg-converter', outcome: 'success', input_width: 48, input_height: 48 })
    expect(run.output_bytes).toBe(Buffer.from(answer.body).byteLength)
    expect(run.duration_ms).toBeGreaterThan(0)
    expect(run.model_ms).toBeGreaterThan(0)

    const figures = (await renderTimes()).find((r) => r.tool === 'svg-converter')
    expect(figures?.runs).toBeGreaterThanOrEqual(1)
    expect(figures?.p50Ms).toBeGreaterThan(0)
    expect(figures!.p95Ms!).toBeGreaterThanOrEqual(figures!.p50Ms!)
  })

  it('JPEG with a background: flattened on it, the original name kept, in UTF-8 too', async () => {
    const user = await newUser()
    const answer = await convert(user, { svg: svgFile(square, 'logo café.svg'), format: 'jpeg', scale: '0.75', background: '#ff0000' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/jpeg')
    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="logo caf_.jpeg"; filename*=UTF-8''logo%20caf%C3%A9.jpeg`,
    )
    expect(await sharp(Buffer.from(answer.body)).metadata()).toMatchObject({ width: 15, height: 8, format: 'jpeg' })
  })

  it('never reads what an external href points at: a local file in <image> is dropped before rendering', async () => {
    const user = await newUser()
    const sneaky = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64">
      <script>fetch('https://example.com')</script>
      <image x="0" y="0" width="64" height="64" xlink:href="file://${process.cwd()}/tests/fixtures/photos/portrait-astronaut.png"/>
      <image x="0" y="0" width="64" height="64" href="${process.cwd()}/tests/fixtures/photos/noface-coffee.png"/>
    </svg>`
    const answer = await convert(user, { svg: svgFile(sneaky), format: 'png', scale: '1' })
    expect(answer.status).toBe(200)
    const { data } = await sharp(Buffer.from(answer.body)).raw().toBuffer({ resolveWithObject: true })
    // Nothing was drawn: every pixel is transparent.
    expect(data.filter((_, i) => i % 4 === 3 && data[i] !== 0).length).toBe(0)
  })

  it('answers each bad input with its own clear error, charges nothing, and keeps serving', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const ok = { format: 'png', scale: '1' }
    const cases: Array<[string, Record<string, string | Blob>, number, RegExp]> = [
      ['missing file', { ...ok }, 400, /Choose an SVG file/],
      ['empty file', { svg: svgFile(''), ...ok }, 400, /The uploaded file is empty\./],
      ['PNG bytes named .svg', { svg: fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'x.svg', 'image/svg+xml'), ...ok }, 415, /^Invalid file type\. Upload an SVG file\.$/],
      ['plain text', { svg: svgFile('just some words'), ...ok }, 415, /Invalid file type/],
      [
        'XXE entity',
        { svg: svgFile('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>'), ...ok },
        400,
        /DOCTYPE or ENTITY/,
      ],
      ['broken XML', { svg: svgFile('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>'), ...ok }, 400, /not well-formed/],
      ['bad format', { svg: svgFile(square), format: 'gif', scale: '1' }, 400, /^format must be one of png, jpeg, webp\.$/],
      ['missing format', { svg: svgFile(square), scale: '1' }, 400, /^format must be one of/],
      ['bad scale', { svg: svgFile(square), format: 'png', scale: '5' }, 400, /^scale must be one of 0\.75, 1, 2, 3\.$/],
      ['bad background', { svg: svgFile(square), ...ok, background: 'url(x)' }, 400, /is not a colour/],
      [
        'output over the pixel cap',
        { svg: svgFile('<svg xmlns="http://www.w3.org/2000/svg" width="6000" height="6000"/>'), format: 'png', scale: '3' },
        400,
        /18000×18000 pixels/,
      ],
      ['oversized upload', { svg: svgFile(Buffer.alloc(20 * MEGABYTE + 10, 0x20)), ...ok }, 413, /^File too large \(max 20MB\)$/],
    ]
    for (const [name, fields, status, message] of cases) {
      const answer = await convert(user, fields)
      expect([name, answer.status]).toEqual([name, status])
      expect(answer.body.error, name).toMatch(message)
      expect(answer.body.remaining, name).toBe(balance)
      expect(answer.headers.get('X-Credits-Remaining'), name).toBe(String(balance))
    }
    expect(await balanceOf(user)).toBe(balance)
    const after = await convert(user, { svg: svgFile(square), ...ok })
    expect(after.status).toBe(200)
    expect(await balanceOf(user)).toBe(balance - 1)
  })

  it('a file that crashes resvg is drawn by librsvg: 200, charged once, and the answer says which renderer drew it', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const camera = fileOf(fixture('svg/openclipart-digital-camera-gradients.svg'), 'camera.svg')
    const answer = await convert(user, { svg: camera, format: 'png', scale: '1' })
    // The pinned resvg aborts on this file (STACK.md): should an upgrade draw it, this fails rather
    // than pass without a fallback (find another file that crashes it then).
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Facet-Model')).toBe('librsvg')
    expect(answer.headers.get('X-Facet-Note')).toBe(LIBRSVG_NOTE)
    expect(await sharp(Buffer.from(answer.body)).metadata()).toMatchObject({ format: 'png', width: 407, height: 207 })
    expect(await balanceOf(user)).toBe(balance - 1)
    const run = await getDb().selectFrom('tool_runs').select(['outcome', 'model']).where('account_id', '=', user.accountId).executeTakeFirstOrThrow()
    expect(run).toEqual({ outcome: 'success', model: 'librsvg' })
    // A file resvg draws says so too.
    expect((await convert(user, { svg: svgFile(square), format: 'webp', scale: '1' })).headers.get('X-Facet-Model')).toBe('resvg')
  })

  it('a file neither renderer can draw answers a clean error, is refunded, and the next one renders', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const answer = await withSmallRenderers(() => convert(user, { svg: svgFile(blurred), format: 'png', scale: '1' }))
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual({ error: RENDERER_FAILED_MESSAGE, detail: RENDERER_FAILED_MESSAGE, remaining: balance })
    expect(await balanceOf(user)).toBe(balance)
    const run = await getDb()
      .selectFrom('tool_runs')
      .select(['outcome'])
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow()
    expect(run.outcome).toBe('failed')
    expect((await convert(user, { svg: svgFile(square), format: 'webp', scale: '1' })).status).toBe(200)
  })

  it('a repeated Idempotency-Key gets the first answer again: no second run, no second charge', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const fields = () => ({ svg: svgFile(square), format: 'png', scale: '1' })
    const first = await convert(user, fields(), { 'idempotency-key': 'retry-me' })
    const second = await convert(user, fields(), { 'idempotency-key': 'retry-me' })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.headers.get('Idempotent-Replayed')).toBe('true')
    expect(Buffer.from(second.body).equals(Buffer.from(first.body))).toBe(true)
    expect(second.headers.get('Content-Disposition')).toBe(first.headers.get('Content-Disposition'))
    expect(second.headers.get('X-Credits-Remaining')).toBe(String(balance - 1))
    expect(await balanceOf(user)).toBe(balance - 1)
    const runs = await getDb().selectFrom('tool_runs').select('id').where('account_id', '=', user.accountId).execute()
    expect(runs).toHaveLength(1)
  })

  it('a key whose run failed and was refunded answers 409 on retry, never a free run', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    // Neither renderer draws the blur in 256 MB: the run fails after the charge and is refunded.
    const { failed, retry } = await withSmallRenderers(async () => ({
      failed: await convert(user, { svg: svgFile(blurred), format: 'png', scale: '1' }, { 'idempotency-key': 'once' }),
      retry: await convert(user, { svg: svgFile(blurred), format: 'png', scale: '1' }, { 'idempotency-key': 'once' }),
    }))
    expect(failed.status).toBe(422)
    expect(retry.status).toBe(409)
    expect(retry.body.error).toMatch(/Idempotency-Key/)
    // The same key with a different request is refused outright (issue 11).
    const other = await convert(user, { svg: svgFile(square), format: 'png', scale: '1' }, { 'idempotency-key': 'once' })
    expect(other.status).toBe(422)
    expect(other.body.error).toMatch(/different request/)
    expect(await balanceOf(user)).toBe(balance)
    const fresh = await convert(user, { svg: svgFile(square), format: 'png', scale: '1' }, { 'idempotency-key': 'new-key' })
    expect(fresh.status).toBe(200)
    expect(await balanceOf(user)).toBe(balance - 1)
  })

  it('answers 402 when the balance cannot cover the run', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    await charge({ accountId: user.accountId, amount: balance, toolSlug: 'test', idempotencyKey: 'drain' })
    const answer = await convert(user, { svg: svgFile(square), format: 'png', scale: '1' })
    expect(answer.status).toBe(402)
    expect(answer.body).toEqual({ error: 'Not enough credits: this run costs 1 and your balance is 0.', detail: 'Not enough credits: this run costs 1 and your balance is 0.', remaining: 0 })
    expect(answer.headers.get('X-Credits-Remaining')).toBe('0')
  })

})
