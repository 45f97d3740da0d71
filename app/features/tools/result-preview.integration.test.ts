// GET /api/results/<id>/preview (issue 35 item 2, decision 179): a small picture of the result, bounded in
// pixels and bytes, for exactly whoever may read the result itself (its owner, a signed link's holder),
// remade when a correction replaces the result, and 404 for anyone else.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { signedResultUrl } from '~/features/jobs/result-links.server'
import { PREVIEW_KEEP_BYTES, PREVIEW_PIXELS } from '~/features/tools/result-preview.server'
import { replaceResultBytes, storeResult } from '~/features/jobs/results.server'
import { loader as previewLoader } from '~/routes/api.results.$id.preview'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { newVisitor, type TestCaller } from '../../../tests/support/tools'

const getPreview = async (id: string, caller: TestCaller | null, query = '', extra: Record<string, string> = {}) =>
  readResult(
    await previewLoader(routeArgs(new Request(`${BASE}/api/results/${id}/preview${query}`, { headers: { ...(caller?.headers ?? {}), ...extra } }), { id })),
  )

/** A noisy 1200 × 900 RGBA PNG with a transparent band: a cutout-like result, megabytes as a PNG. */
async function bigCutout(): Promise<Buffer> {
  const width = 1200
  const height = 900
  const pixels = Buffer.alloc(width * height * 4)
  let seed = 7
  for (let i = 0; i < pixels.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    const x = (i / 4) % width
    pixels[i] = (x + (seed & 63)) & 255
    pixels[i + 1] = (seed >> 8) & 255
    pixels[i + 2] = 128
    pixels[i + 3] = x < width / 4 ? 0 : 255
  }
  return sharp(pixels, { raw: { width, height, channels: 4 } }).png().toBuffer()
}

// Making and encoding megapixel PNGs is slow on a busy 2-core machine: generous limits, no timing asserted.
describe('result previews', { timeout: 300_000 }, () => {
  it('are small WebPs of the result, for its owner and a signed link only', async () => {
    const owner = await newVisitor()
    const other = await newVisitor()
    const bytes = await bigCutout()
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'cutout.png' })

    const mine = await getPreview(id, owner)
    expect(mine.status).toBe(200)
    expect(mine.headers.get('content-type')).toBe('image/webp')
    const body = Buffer.from(mine.body)
    expect(Number(mine.headers.get('content-length'))).toBe(body.byteLength)
    const meta = await sharp(body).metadata()
    expect(Math.max(meta.width!, meta.height!)).toBe(PREVIEW_PIXELS)
    expect(meta.width! / meta.height!).toBeCloseTo(1200 / 900, 2)
    // The cutout's transparency survives: the backdrop the screen chose shows through it.
    expect(meta.hasAlpha).toBe(true)
    // A tenth of the result at most (the slow link's point), and under 400 KB whatever the result.
    expect(body.byteLength).toBeLessThan(bytes.byteLength / 10)
    expect(body.byteLength).toBeLessThan(400 * 1024)
    expect(mine.headers.get('cache-control')).toBe('private, no-cache')

    // Asked again with its validator: not sent again.
    const etag = mine.headers.get('etag')!
    expect((await getPreview(id, owner, '', { 'If-None-Match': etag })).status).toBe(304)

    // Exactly the result's own rule: another visitor, nobody, a bad id get its 404; a signed link opens it.
    expect((await getPreview(id, other)).status).toBe(404)
    expect((await getPreview(id, null)).status).toBe(404)
    expect((await getPreview('not-a-uuid', owner)).status).toBe(404)
    const link = new URL(signedResultUrl(id), BASE)
    expect((await getPreview(id, null, link.search)).status).toBe(200)
    const forged = link.search.replace(/signature=[\w-]/, (m) => (m.endsWith('A') ? m.slice(0, -1) + 'B' : m.slice(0, -1) + 'A'))
    expect((await getPreview(id, null, forged)).status).toBe(404)
    const expired = new URL(signedResultUrl(id, new Date(Date.now() - 2 * 3600_000)), BASE)
    expect((await getPreview(id, null, expired.search)).status).toBe(410)
  })

  it('serves a small result as it is, and follows a correction that replaces the result', async () => {
    const owner = await newVisitor()
    const small = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#abcdef' } }).png().toBuffer()
    expect(small.byteLength).toBeLessThan(PREVIEW_KEEP_BYTES)
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes: small, contentType: 'image/png', filename: 'tiny.png' })
    const first = await getPreview(id, owner)
    expect(first.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(first.body).equals(small)).toBe(true)

    const corrected = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#123456' } }).png().toBuffer()
    await replaceResultBytes(id, { bytes: corrected, contentType: 'image/png' })
    const second = await getPreview(id, owner, '', { 'If-None-Match': first.headers.get('etag')! })
    expect(second.status).toBe(200)
    expect(Buffer.from(second.body).equals(corrected)).toBe(true)
  })
})
