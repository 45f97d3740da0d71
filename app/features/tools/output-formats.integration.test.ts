// The result's file type through the routes (decision 173): by default an opaque result follows its
// upload (a JPEG in, a JPEG out, at most 1.5× the upload's bytes per pixel), a result with alpha
// stays PNG; `format` is honoured on every raster tool; Content-Type and the download name's
// extension follow the type, on the API, the page without JavaScript and a batch's zip alike.
import sharp from 'sharp'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { action as postBatch } from '~/routes/api.batches._index'
import { loader as getBatch } from '~/routes/api.batches.$id'
import { loader as getDownload } from '~/routes/api.batches.$id.download'
import { action as restoreAction } from '~/routes/api.face-retouch.restore'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { action as enhanceAction } from '~/routes/api.image-scaler.scale'
import { action as removeBgAction } from '~/routes/api.remove-bg'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { action as blurPageAction, loader as blurPageLoader } from '~/routes/tools.face-blurrer'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { fileOf, fixture, newUser, toolRequest, type TestCaller } from '../../../tests/support/tools'
import { readZip } from '../../../tests/support/zip'
import type { ToolPageResult } from './ui/page-result'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

type Action = typeof blurAction
async function call(run: Action, apiPath: string, caller: TestCaller, fields: Record<string, string | Blob>) {
  return readResult(await run(routeArgs(toolRequest(apiPath, fields, caller.headers))))
}
const photo = (name: string) => fileOf(fixture(`photos/${name}`), name)

/** The answer's type, its download name, and what sharp reads in its bytes. */
async function delivered(answer: { headers: Headers; body: unknown }) {
  const bytes = Buffer.from(answer.body as ArrayBuffer)
  const meta = await sharp(bytes).metadata()
  const filename = /filename="([^"]+)"/.exec(answer.headers.get('content-disposition') ?? '')?.[1]
  return { type: answer.headers.get('content-type'), filename, format: meta.format, alpha: meta.hasAlpha, bytes, pixels: meta.width! * meta.height! }
}

/** Bytes per pixel of the result over the upload's. */
async function bppRatio(result: { bytes: Buffer; pixels: number }, upload: Buffer): Promise<number> {
  const meta = await sharp(upload).metadata()
  return result.bytes.length / result.pixels / (upload.length / (meta.width! * meta.height!))
}

describe('POST /api/face-blur/blur/ (no face in these photos: nothing is charged)', () => {
  it('answers a JPEG upload with a JPEG by default, within 1.5× its bytes per pixel', async () => {
    const user = await newUser()
    const out = await delivered(await call(blurAction, '/api/face-blur/blur/', user, { image: photo('noface-rocket.jpg'), blur: '32' }))
    expect([out.type, out.filename, out.format]).toEqual(['image/jpeg', 'face-blurred.jpg', 'jpeg'])
    expect(await bppRatio(out, fixture('photos/noface-rocket.jpg'))).toBeLessThanOrEqual(1.5)
  })

  it('keeps a PNG upload PNG by default', async () => {
    const user = await newUser()
    const out = await delivered(await call(blurAction, '/api/face-blur/blur/', user, { image: photo('noface-cat-chelsea.png'), blur: '32' }))
    expect([out.type, out.filename, out.format]).toEqual(['image/png', 'face-blurred.png', 'png'])
  })

  it.each([
    ['png', 'image/png', 'face-blurred.png', 'png'],
    ['webp', 'image/webp', 'face-blurred.webp', 'webp'],
    ['jpeg', 'image/jpeg', 'face-blurred.jpg', 'jpeg'],
  ])('honours format=%s', async (format, type, filename, decoded) => {
    const user = await newUser()
    const upload = format === 'jpeg' ? photo('noface-cat-chelsea.png') : photo('noface-rocket.jpg')
    const out = await delivered(await call(blurAction, '/api/face-blur/blur/', user, { image: upload, blur: '32', format }))
    expect([out.type, out.filename, out.format]).toEqual([type, filename, decoded])
  })
})

describe('POST /api/image-scaler/scale/', () => {
  it('answers a JPEG with a JPEG by default and honours format=webp, the name following', async () => {
    const user = await newUser()
    const upload = fixture('photos/degraded-face-crop-64px.jpg')
    const byDefault = await delivered(await call(enhanceAction, '/api/image-scaler/scale/', user, { image: fileOf(upload, 'face.jpg') }))
    expect([byDefault.type, byDefault.filename, byDefault.format]).toEqual(['image/jpeg', 'face-enhanced.jpg', 'jpeg'])
    expect(await bppRatio(byDefault, upload)).toBeLessThanOrEqual(1.5)
    const webp = await delivered(await call(enhanceAction, '/api/image-scaler/scale/', user, { image: fileOf(upload, 'face.jpg'), format: 'webp' }))
    expect([webp.type, webp.filename, webp.format]).toEqual(['image/webp', 'face-enhanced.webp', 'webp'])
  })
})

describe('POST /api/face-retouch/restore/ (no face: nothing is charged)', () => {
  it('names the stored result by its type, following the upload or format', async () => {
    const user = await newUser()
    for (const [format, filename, decoded] of [
      [undefined, 'face-restored.jpg', 'jpeg'],
      ['png', 'face-restored.png', 'png'],
    ] as const) {
      const answer = await call(restoreAction, '/api/face-retouch/restore/', user, { image: photo('noface-rocket.jpg'), ...(format ? { format } : {}) })
      expect(answer.status).toBe(200)
      const body = answer.body as { restored_url: string; filename: string }
      expect(body.filename).toBe(filename)
      const { pathname } = new URL(body.restored_url, BASE)
      const id = pathname.split('/').pop()!
      const stored = await resultLoader(routeArgs(new Request(`${BASE}${pathname}?download=1`, { headers: user.headers }), { id }))
      expect(stored.headers.get('content-disposition')).toContain(`filename="${filename}"`)
      expect((await sharp(Buffer.from(await stored.arrayBuffer())).metadata()).format).toBe(decoded)
    }
  })
})

describe('POST /api/remove-bg/', () => {
  it('keeps a transparent cutout PNG, answers a cutout over a colour in the upload’s type, and honours png and webp', async () => {
    const user = await newUser()
    const remove = async (fields: Record<string, string>) =>
      delivered(await call(removeBgAction, '/api/remove-bg/', user, { image: photo('degraded-face-crop-64px.jpg'), ...fields }))
    const cutout = await remove({})
    expect([cutout.type, cutout.filename, cutout.alpha]).toEqual(['image/png', 'background-removed.png', true])
    const onWhite = await remove({ background: 'white' })
    expect([onWhite.type, onWhite.filename, onWhite.format]).toEqual(['image/jpeg', 'cutout.jpg', 'jpeg'])
    const asPng = await remove({ background: '#10b981', format: 'png' })
    expect([asPng.type, asPng.filename, asPng.format]).toEqual(['image/png', 'cutout-10b981.png', 'png'])
    const asWebp = await remove({ format: 'webp' })
    expect([asWebp.type, asWebp.filename, asWebp.format, asWebp.alpha]).toEqual(['image/webp', 'background-removed.webp', 'webp', true])
  })
})

describe('the blurrer’s page without JavaScript', () => {
  it('posts the file-type field and names the stored result by it', async () => {
    const image = new File([new Uint8Array(fixture('photos/noface-rocket.jpg'))], 'rocket.jpg', { type: 'image/jpeg' })
    const posted = await readResult(await blurPageAction(routeArgs(formRequest('/tools/face-blurrer', { image, blur: '32', format: 'webp' }))))
    expect(posted.status).toBe(302)
    const location = new URL(posted.headers.get('location')!, BASE)
    expect(location.searchParams.get('format')).toBe('webp')
    const headers = { cookie: cookieFrom(posted.headers) }
    let body: ToolPageResult | undefined
    await vi.waitFor(
      async () => {
        const page = await blurPageLoader(routeArgs(new Request(location, { headers })))
        expect(page.job?.status).toBe('succeeded')
        body = page.pageResult as ToolPageResult
      },
      { timeout: 60_000, interval: 100 },
    )
    if (!body?.ok) throw new Error('the run failed')
    expect(body.filename).toBe('face-blurred.webp')
    expect(body.fieldValues?.format).toBe('webp')
  })
})

describe('a batch', () => {
  async function zipOfBatch(user: TestCaller, fields: Record<string, string>) {
    const form = new FormData()
    form.append('tool', 'face-blurrer')
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    form.append('image', fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg'))
    form.append('image', fileOf(fixture('photos/noface-cat-chelsea.png'), 'cat.png', 'image/png'))
    const accepted = await readResult(await postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers: user.headers }))))
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const id = (accepted.body as { id: string }).id
    await vi.waitFor(
      async () => {
        const batch = await readResult(await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers: user.headers }), { id })))
        expect((batch.body as { status: string }).status).toBe('completed')
      },
      { timeout: 90_000, interval: 200 },
    )
    const download = await readResult(await getDownload(routeArgs(new Request(`${BASE}/api/batches/${id}/download/`, { headers: user.headers }), { id })))
    return readZip(download.body)
  }

  it('names each result in its zip by its type: by default each follows its own upload; a format applies to all', async () => {
    const user = await newUser()
    const byDefault = await zipOfBatch(user, { blur: '32' })
    expect((await sharp(byDefault.get('rocket.jpg')!).metadata()).format).toBe('jpeg')
    expect((await sharp(byDefault.get('cat.png')!).metadata()).format).toBe('png')
    const asWebp = await zipOfBatch(user, { blur: '32', format: 'webp' })
    expect([...asWebp.keys()].filter((name) => !name.endsWith('.json')).sort()).toEqual(['cat.webp', 'rocket.webp'])
  })
})
