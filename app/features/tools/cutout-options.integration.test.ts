// The remover's output options and every tool's format option through the studio's own endpoints
// (POST /api/remove-bg/, POST /api/jobs/, POST /api/face-blur/blur/): what comes back, its type and
// download name, the second file (a background image) with its own checks, and refusals that cost nothing.
import sharp from 'sharp'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as blurFaces } from '~/routes/api.face-blur.blur'
import { action as postJob } from '~/routes/api.jobs._index'
import { loader as getAnswer } from '~/routes/api.jobs.$id.answer'
import { action as postBatch } from '~/routes/api.batches._index'
import { loader as getBatch } from '~/routes/api.batches.$id'
import { readResult as readStoredResult } from '../jobs/results.server'
import { balanceOf, fileOf, fixture, newUser, toolRequest } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { JPEG_NEEDS_BACKGROUND_MESSAGE, TWO_BACKGROUNDS_MESSAGE } from './runners/background-remover.server'
import { FORMAT_MESSAGE } from './output-format.server'
import { waitForJobEnd } from '../jobs/wait.server'

afterAll(() => stopBoss({ timeoutMs: 5_000 }))

const rocket = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') // 640 × 427
const green = async () => fileOf(await sharp({ create: { width: 40, height: 40, channels: 3, background: '#00ff00' } }).png().toBuffer(), 'g.png', 'image/png')

async function remove(fields: Record<string, string | Blob>, headers?: Record<string, string>) {
  return readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', fields, headers))))
}

describe('POST /api/remove-bg/ output options', () => {
  it('answers PNG by default (the spec\'s contract), and JPEG for format=auto over a colour from a JPEG upload', async () => {
    const plain = await remove({ image: rocket() })
    expect(plain.headers.get('Content-Type')).toBe('image/png')
    const auto = await remove({ image: rocket(), background: 'white', format: 'auto' })
    expect(auto.headers.get('Content-Type')).toBe('image/jpeg')
    expect(auto.headers.get('Content-Disposition')).toContain('cutout.jpg')
    expect((await sharp(Buffer.from(auto.body)).metadata()).format).toBe('jpeg')
  })

  it('answers a transparent WebP for format=webp, named .webp', async () => {
    const answer = await remove({ image: rocket(), format: 'webp' })
    expect(answer.headers.get('Content-Type')).toBe('image/webp')
    expect(answer.headers.get('Content-Disposition')).toContain('background-removed.webp')
    expect((await sharp(Buffer.from(answer.body)).metadata()).hasAlpha).toBe(true)
  })

  it('refuses JPEG for a transparent cutout and an unknown format, charging nothing', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    const jpeg = await remove({ image: rocket(), format: 'jpg' }, user.headers)
    expect([jpeg.status, jpeg.body.error]).toEqual([400, JPEG_NEEDS_BACKGROUND_MESSAGE])
    const unknown = await remove({ image: rocket(), format: 'gif' }, user.headers)
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatch(/format must be png, jpg, webp, auto or zip/)
    expect(await balanceOf(user)).toBe(before)
  })

  it('crops to the subject with a margin, and answers the alpha mask alone', async () => {
    const cropped = await remove({ image: rocket(), crop: 'on', crop_margin: '5%' })
    const meta = await sharp(Buffer.from(cropped.body)).metadata()
    expect(meta.width! < 640 || meta.height! < 427).toBe(true)
    const mask = await remove({ image: rocket(), channels: 'alpha' })
    expect(mask.headers.get('Content-Disposition')).toContain('mask.png')
    expect((await sharp(Buffer.from(mask.body)).metadata()).channels).toBe(1)
  })

  it('puts the cutout over a background image (the second file), and checks that file like the first', async () => {
    const answer = await remove({ image: rocket(), background_image: await green() })
    expect(answer.status).toBe(200)
    // Over a backdrop the result is opaque: the JPEG upload's comes back as a JPEG (decision 173).
    expect(answer.headers.get('content-type')).toBe('image/jpeg')
    const { data } = await sharp(Buffer.from(answer.body)).raw().toBuffer({ resolveWithObject: true })
    // The sky corner: background (within JPEG's rounding).
    for (const [channel, green] of [0, 255, 0].entries()) expect(Math.abs(data[channel]! - green)).toBeLessThanOrEqual(3)
    const notImage = await remove({ image: rocket(), background_image: fileOf(Buffer.from('not a picture'), 'x.png', 'image/png') })
    expect(notImage.status).toBe(415)
    expect(notImage.body.error).toMatch(/^The background image: /)
    const both = await remove({ image: rocket(), background: 'white', background_image: await green() })
    expect([both.status, both.body.error]).toEqual([400, TWO_BACKGROUNDS_MESSAGE])
  })

  it('refuses a background image whose header claims too many pixels, before any decode', async () => {
    // A PNG header of 20000 × 20000 pixels (400 MP) in a few bytes.
    const huge = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer()
    huge.writeUInt32BE(20_000, 16)
    huge.writeUInt32BE(20_000, 20)
    const answer = await remove({ image: rocket(), background_image: fileOf(huge, 'huge.png', 'image/png') })
    expect(answer.status).toBe(413)
    expect(answer.body.error).toMatch(/^The background image: Image too large/)
  })
})

describe('POST /api/jobs/ with a background image', () => {
  it('carries the second file to the worker with the job', async () => {
    const user = await newUser()
    const fields = { tool: 'background-remover', image: rocket(), background_image: await green(), crop: 'true', format: 'webp' }
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) form.append(name, value)
    const accepted = await readResult(await postJob(routeArgs(new Request(`${BASE}/api/jobs/`, { method: 'POST', body: form, headers: user.headers }))))
    expect(accepted.status).toBe(202)
    const ended = await waitForJobEnd(accepted.body.id, 60_000)
    expect(ended?.job.status).toBe('succeeded')
    const answer = await readResult(await getAnswer(routeArgs(new Request(`${BASE}/api/jobs/${accepted.body.id}/answer/`, { headers: user.headers }), { id: accepted.body.id })))
    expect(answer.headers.get('Content-Type')).toBe('image/webp')
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect(meta.width! < 640 || meta.height! < 427).toBe(true)
  })
})

describe('POST /api/batches/ with the remover\'s output options', () => {
  it('applies them to every item: cropped WebP results', async () => {
    const user = await newUser()
    const form = new FormData()
    form.append('tool', 'background-remover')
    form.append('crop', 'true')
    form.append('crop_margin', '4px')
    form.append('format', 'webp')
    for (let i = 0; i < 2; i++) form.append('image', fileOf(await sharp(fixture('photos/noface-rocket.jpg')).resize(200 + i, 133).jpeg().toBuffer(), `r${i}.jpg`, 'image/jpeg'))
    const accepted = await readResult(await postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers: user.headers }))))
    expect(accepted.status).toBe(202)
    const id = accepted.body.id as string
    let batch: any
    await vi.waitFor(
      async () => {
        batch = (await readResult(await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers: user.headers }), { id })))).body
        expect(batch.status).toBe('completed')
      },
      { timeout: 60_000, interval: 100 },
    )
    expect(batch.done).toBe(2)
    for (const item of batch.items) {
      const stored = await readStoredResult(item.result_url.split('/').filter(Boolean).pop(), user.accountId)
      expect(stored?.contentType).toBe('image/webp')
      const meta = await sharp(stored!.bytes).metadata()
      expect(meta.width! < 200 || meta.height! < 133).toBe(true)
    }
  })
})

describe('format on the other tools', () => {
  it('answers the face blurrer\'s result as JPEG for format=jpg (named .jpg) and refuses an unknown format', async () => {
    const jpeg = readResult(await blurFaces(routeArgs(toolRequest('/api/face-blur/blur/', { image: rocket(), blur: '20', format: 'jpg' }))))
    const answer = await jpeg
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/jpeg')
    expect(answer.headers.get('Content-Disposition')).toMatch(/\.jpg/)
    const bad = await readResult(await blurFaces(routeArgs(toolRequest('/api/face-blur/blur/', { image: rocket(), blur: '20', format: 'tiff' }))))
    expect([bad.status, bad.body.error]).toEqual([400, FORMAT_MESSAGE])
  })
})
