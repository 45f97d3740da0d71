// Correcting results through the real routes (decision 157): the remover's matte (mask, edges,
// parts) and the blurrer's boxes re-rendered without a model and without a charge; the job's
// result_url serves the latest; owner only; bad input answers 4xx with its message.
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as blurFaces } from '~/routes/api.face-blur.blur'
import { loader as getJob } from '~/routes/api.jobs.$id'
import { loader as getCorrections, action as postCorrections } from '~/routes/api.jobs.$id.corrections'
import { loader as getPreview } from '~/routes/api.jobs.$id.corrections.preview.$which'
import { loader as getStoredResult } from '~/routes/api.results.$id'
import { balanceOf, fileOf, fixture, newUser, pngWithUnknownFilter, toolRequest, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { sweepExpiredResults } from '../jobs/results.server'
import { forgetOpened } from './render.server'
import {
  CUTOUT_FIELDS_ON_FACES_MESSAGE,
  FACES_ON_CUTOUT_MESSAGE,
  FEATHER_MESSAGE,
  GROW_MESSAGE,
  MASK_TYPE_MESSAGE,
  maskSizeMessage,
  NO_SOURCE_MESSAGE,
  NOT_DELIVERED_MESSAGE,
  unknownPartMessage,
} from './corrections.server'

afterAll(() => stopBoss({ timeoutMs: 5_000 }))

const rocket = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') // 640 × 427
const portrait = () => fileOf(fixture('photos/portrait-astronaut.png'), 'portrait.png', 'image/png') // 512 × 512, one face

let owner: TestCaller
let stranger: TestCaller
beforeAll(async () => {
  owner = await newUser()
  stranger = await newUser()
  await grant({ accountId: owner.accountId, amount: 100, kind: 'adjustment', description: 'Test credits' })
})

async function run(action: typeof removeBg, path: string, fields: Record<string, string | Blob>, caller = owner) {
  const answer = await readResult(await action(routeArgs(toolRequest(path, fields, caller.headers))))
  expect(answer.status).toBe(200)
  const jobId = answer.headers.get('X-Facet-Job-Id')
  expect(jobId).toMatch(/^[0-9a-f-]{36}$/)
  return { jobId: jobId!, bytes: Buffer.from(answer.body as ArrayBuffer), headers: answer.headers }
}

const cutout = (fields: Record<string, string | Blob> = {}) => run(removeBg, '/api/remove-bg/', { image: rocket(), ...fields })

async function correct(jobId: string, fields: Record<string, string | Blob>, caller = owner) {
  const request = formRequest(`/api/jobs/${jobId}/corrections/`, fields, { headers: caller.headers })
  return readResult(await postCorrections(routeArgs(request, { id: jobId })))
}

async function view(jobId: string, caller = owner) {
  return readResult(await getCorrections(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/corrections/`, { headers: caller.headers }), { id: jobId })))
}

/** A greyscale PNG mask: 128 everywhere, with rectangles of other values. */
async function mask(width: number, height: number, strokes: Array<{ x: number; y: number; width: number; height: number; value: number }> = []) {
  const data = Buffer.alloc(width * height, 128)
  for (const s of strokes) for (let y = s.y; y < s.y + s.height; y++) data.fill(s.value, y * width + s.x, y * width + s.x + s.width)
  return fileOf(await sharp(data, { raw: { width, height, channels: 1 } }).png().toBuffer(), 'mask.png', 'image/png')
}

async function alphaOf(bytes: Buffer | ArrayBuffer) {
  const { data, info } = await sharp(Buffer.from(bytes as ArrayBuffer)).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height, at: (x: number, y: number) => data[y * info.width + x]! }
}

async function storedResult(jobId: string, caller = owner) {
  const job = await readResult(await getJob(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/`, { headers: caller.headers }), { id: jobId })))
  const resultId = (job.body.result_url as string).split('/').pop()!
  const answer = await readResult(await getStoredResult(routeArgs(new Request(BASE + job.body.result_url, { headers: caller.headers }), { id: resultId })))
  return Buffer.from(answer.body as ArrayBuffer)
}

async function ledgerRows(accountId: string) {
  const rows = await getDb().selectFrom('credit_transactions').select(['id']).where('account_id', '=', accountId).execute()
  return rows.length
}

describe('correcting a cutout', () => {
  it('lists what can be corrected: the result\'s size, the previews, the parts, the default edges', async () => {
    const { jobId } = await cutout()
    const answer = await view(jobId)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      job_id: jobId,
      kind: 'cutout',
      tool: 'background-remover',
      width: 640,
      height: 427,
      preview_width: 640,
      preview_height: 427,
      edges: { feather: 0, grow: 0, decontaminate: true },
      corrected: false,
      mask_preview_url: null,
      faces: [],
      blur_radius: null,
    })
    expect(answer.body.parts.length).toBeGreaterThan(0)
    expect(answer.body.parts[0]).toMatchObject({ id: '1', kept_by_refinement: true, decision: null })
    const photo = await readResult(await getPreview(routeArgs(new Request(BASE + answer.body.photo_preview_url, { headers: owner.headers }), { id: jobId, which: 'photo' })))
    expect(photo.headers.get('Content-Type')).toBe('image/jpeg')
    expect(await sharp(Buffer.from(photo.body)).metadata()).toMatchObject({ width: 640, height: 427 })
    const matte = await readResult(await getPreview(routeArgs(new Request(BASE + answer.body.matte_preview_url, { headers: owner.headers }), { id: jobId, which: 'matte' })))
    expect(await sharp(Buffer.from(matte.body)).metadata()).toMatchObject({ width: 640, height: 427, channels: 1 })
    const part = await readResult(await getPreview(routeArgs(new Request(BASE + answer.body.parts[0].thumbnail_url, { headers: owner.headers }), { id: jobId, which: 'part-1' })))
    expect(part.headers.get('Content-Type')).toBe('image/png')
    // The before/after's picture (decision 182): the current result at the preview's size, with its alpha.
    const resultPreview = answer.body.photo_preview_url.replace(/photo$/, 'result')
    const result = await readResult(await getPreview(routeArgs(new Request(BASE + resultPreview, { headers: owner.headers }), { id: jobId, which: 'result' })))
    expect(result.headers.get('Content-Type')).toBe('image/webp')
    expect(await sharp(Buffer.from(result.body)).metadata()).toMatchObject({ width: 640, height: 427, hasAlpha: true })
    const strangers = await readResult(await getPreview(routeArgs(new Request(BASE + resultPreview, { headers: stranger.headers }), { id: jobId, which: 'result' })))
    expect(strangers.status).toBe(404)
  })

  it('gives back the uncorrected result exactly for a plain grey mask, for every kind of output, and charges nothing', async () => {
    for (const fields of <Array<Record<string, string>>>[{}, { background: 'white' }, { format: 'webp' }, { crop: 'on', crop_margin: '10px' }, { background: '#336699', format: 'jpg' }, { channels: 'alpha' }, { shadow: 'on' }]) {
      const { jobId, bytes } = await cutout(fields)
      const before = await balanceOf(owner)
      const rows = await ledgerRows(owner.accountId)
      // First from what the run left open in this process (decision 169), then read back from storage.
      const grey = await correct(jobId, { mask: await mask(640, 427) })
      expect(grey.status, JSON.stringify(fields)).toBe(200)
      expect(grey.headers.get('X-Credits-Charged')).toBe('0')
      expect(Buffer.from(grey.body).equals(bytes), JSON.stringify(fields)).toBe(true)
      forgetOpened()
      const stored = await correct(jobId, { mask: await mask(640, 427) })
      expect(Buffer.from(stored.body).equals(bytes), `${JSON.stringify(fields)} from storage`).toBe(true)
      // A preview-sized mask scaled up, and no mask at all, are as neutral.
      const small = await correct(jobId, { mask: await mask(320, 214), feather: '0', grow: '0', decontaminate: 'true' })
      expect(Buffer.from(small.body).equals(bytes), JSON.stringify(fields)).toBe(true)
      expect(await balanceOf(owner)).toBe(before)
      expect(await ledgerRows(owner.accountId)).toBe(rows)
    }
    // Seven runs and three corrections each: a safety net for a loaded machine, not a speed check.
  }, 300_000)

  it('restores under a white stroke and removes under a black one, and the job\'s result_url serves the corrected image', async () => {
    const { jobId, bytes } = await cutout()
    const original = await alphaOf(bytes)
    // The top-left corner is sky (cut away); the centre of the subject's box is kept.
    const { parts } = (await view(jobId)).body
    const box = parts[0].box as { x: number; y: number; width: number; height: number }
    const inside = { x: box.x + Math.floor(box.width / 2) - 2, y: box.y + Math.floor(box.height / 2) - 2 }
    expect(original.at(5, 5)).toBe(0)
    expect(original.at(inside.x + 2, inside.y + 2)).toBe(255)
    const answer = await correct(jobId, {
      mask: await mask(640, 427, [
        { x: 0, y: 0, width: 20, height: 20, value: 255 },
        { x: inside.x, y: inside.y, width: 5, height: 5, value: 0 },
      ]),
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    expect(answer.headers.get('X-Facet-Job-Id')).toBe(jobId)
    const corrected = await alphaOf(answer.body)
    expect(corrected.at(5, 5)).toBe(255)
    expect(corrected.at(inside.x + 2, inside.y + 2)).toBe(0)
    // Outside the strokes nothing changed.
    expect(corrected.at(600, 400)).toBe(original.at(600, 400))
    expect((await storedResult(jobId)).equals(Buffer.from(answer.body))).toBe(true)
    const after = (await view(jobId)).body
    expect(after.corrected).toBe(true)
    expect(after.mask_preview_url).toBe(`/api/jobs/${jobId}/corrections/preview/mask`)
    // mask=keep keeps the stored strokes while the edges change.
    const kept = await correct(jobId, { mask: 'keep', feather: '0' })
    expect(Buffer.from(kept.body).equals(Buffer.from(answer.body))).toBe(true)
    // Drawn on a preview at half the size, applied at full size: the stroke covers twice its pixels.
    const half = await alphaOf((await correct(jobId, { mask: await mask(320, 214, [{ x: 0, y: 0, width: 10, height: 10, value: 255 }]) })).body)
    expect([half.at(5, 5), half.at(15, 15)]).toEqual([255, 255])
    expect(half.at(5, 40)).toBe(original.at(5, 40))
    expect(half.at(inside.x + 2, inside.y + 2)).toBe(255)
  })

  it('grows, shrinks and feathers the alpha', async () => {
    const { jobId, bytes } = await cutout()
    const count = (alpha: Awaited<ReturnType<typeof alphaOf>>, test: (v: number) => boolean) => alpha.data.filter(test).length
    const original = await alphaOf(bytes)
    const grown = await alphaOf((await correct(jobId, { grow: '6' })).body)
    const shrunk = await alphaOf((await correct(jobId, { grow: '-6' })).body)
    const feathered = await alphaOf((await correct(jobId, { feather: '8' })).body)
    const visible = (v: number) => v > 0
    expect(count(grown, visible)).toBeGreaterThan(count(original, visible))
    expect(count(shrunk, visible)).toBeLessThan(count(original, visible))
    const partial = (v: number) => v > 0 && v < 255
    expect(count(feathered, partial)).toBeGreaterThan(count(original, partial))
    // Growing never lowers a pixel, shrinking never raises one.
    const lowered = original.data.filter((v, p) => grown.data[p]! < v).length
    const raised = original.data.filter((v, p) => shrunk.data[p]! > v).length
    expect([lowered, raised]).toEqual([0, 0])
  })

  it('removes a kept part and keeps it again', async () => {
    const { jobId, bytes } = await cutout()
    const { parts } = (await view(jobId)).body
    const box = parts[0].box as { x: number; y: number; width: number; height: number }
    const centre = { x: box.x + Math.floor(box.width / 2), y: box.y + Math.floor(box.height / 2) }
    const removed = await alphaOf((await correct(jobId, { parts: JSON.stringify({ '1': 'remove' }) })).body)
    expect(removed.at(centre.x, centre.y)).toBe(0)
    expect((await view(jobId)).body.parts[0].decision).toBe('remove')
    const kept = await correct(jobId, { parts: JSON.stringify({ '1': 'keep' }) })
    expect(Buffer.from(kept.body).equals(bytes)).toBe(true)
  })

  it('answers 400 with the message for a bad mask, a value out of range, faces on a cutout and an unknown part', async () => {
    const { jobId, bytes } = await cutout()
    const cases: Array<[Record<string, string | Blob>, string]> = [
      [{ mask: await mask(100, 100) }, maskSizeMessage(640, 427)],
      [{ mask: await mask(641, 427) }, maskSizeMessage(640, 427)],
      [{ mask: fileOf(await sharp({ create: { width: 640, height: 427, channels: 3, background: '#808080' } }).jpeg().toBuffer(), 'm.jpg', 'image/jpeg') }, MASK_TYPE_MESSAGE],
      [{ mask: fileOf(Buffer.from('not a picture'), 'm.png', 'image/png') }, MASK_TYPE_MESSAGE],
      [{ feather: '21' }, FEATHER_MESSAGE],
      [{ feather: '2.5' }, FEATHER_MESSAGE],
      [{ grow: '-21' }, GROW_MESSAGE],
      [{ faces: '[]' }, FACES_ON_CUTOUT_MESSAGE],
      [{ parts: JSON.stringify({ '99': 'keep' }) }, unknownPartMessage('99')],
      [{ parts: '["keep"]' }, 'parts must be a JSON object naming part ids with keep or remove, such as {"2": "keep"}.'],
      [{ decontaminate: 'maybe' }, 'decontaminate must be true or false.'],
    ]
    for (const [fields, message] of cases) {
      const answer = await correct(jobId, fields)
      expect([answer.status, answer.body.error]).toEqual([400, message])
    }
    // None of them changed the stored result.
    expect((await storedResult(jobId)).equals(bytes)).toBe(true)
  })

  it('is the owner\'s only: anyone else gets 404 and changes nothing', async () => {
    const { jobId, bytes } = await cutout()
    expect((await view(jobId, stranger)).status).toBe(404)
    const answer = await correct(jobId, { mask: await mask(640, 427, [{ x: 0, y: 0, width: 50, height: 50, value: 255 }]) }, stranger)
    expect(answer.status).toBe(404)
    const preview = await readResult(await getPreview(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/corrections/preview/photo`, { headers: stranger.headers }), { id: jobId, which: 'photo' })))
    expect(preview.status).toBe(404)
    expect((await storedResult(jobId)).equals(bytes)).toBe(true)
  })

  it('answers 410 once the result has expired (the sweeper deletes what was kept) and 409 for a run that did not deliver', async () => {
    const { jobId } = await cutout()
    await getDb().updateTable('result_edits').set({ expires_at: new Date(Date.now() - 1000) }).where('job_id', '=', jobId).execute()
    const expired = await correct(jobId, { feather: '2' })
    expect([expired.status, expired.body.error]).toEqual([410, NO_SOURCE_MESSAGE])
    await sweepExpiredResults(new Date())
    expect(await getDb().selectFrom('result_edits').select('job_id').where('job_id', '=', jobId).executeTakeFirst()).toBeUndefined()

    const undecodable = fileOf(pngWithUnknownFilter(), 'cut.png', 'image/png')
    const failed = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: undecodable }, owner.headers))))
    expect(failed.status).toBe(400)
    const failedJob = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', owner.accountId).where('status', '=', 'failed').executeTakeFirstOrThrow()
    const refused = await correct(failedJob.id, { feather: '2' })
    expect([refused.status, refused.body.error]).toEqual([409, NOT_DELIVERED_MESSAGE])
  })
})

describe('correcting the blurred faces', () => {
  async function blurred() {
    return run(blurFaces as typeof removeBg, '/api/face-blur/blur/', { image: portrait(), blur: '20' })
  }
  const photoPixels = async () => sharp(fixture('photos/portrait-astronaut.png')).ensureAlpha().raw().toBuffer()
  const pixelsOf = (bytes: Buffer | ArrayBuffer) => sharp(Buffer.from(bytes as ArrayBuffer)).ensureAlpha().raw().toBuffer()
  const sameIn = (a: Buffer, b: Buffer, box: { x: number; y: number; width: number; height: number }, width = 512) => {
    for (let y = Math.floor(box.y); y < box.y + box.height; y++) {
      for (let x = Math.floor(box.x); x < box.x + box.width; x++) {
        const i = (y * width + x) * 4
        if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) return false
      }
    }
    return true
  }

  it('lists the detected boxes in the job\'s status, removes a false one and blurs a missed one, free', async () => {
    const { jobId, bytes } = await blurred()
    const status = await readResult(await getJob(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/`, { headers: owner.headers }), { id: jobId })))
    expect(status.body.faces).toHaveLength(1)
    const [face] = status.body.faces as Array<{ x: number; y: number; width: number; height: number; score: number }>
    expect(face!.score).toBeGreaterThan(0.6)
    const photo = await photoPixels()
    const centre = { x: face!.x + face!.width / 4, y: face!.y + face!.height / 4, width: face!.width / 2, height: face!.height / 2 }
    expect(sameIn(await pixelsOf(bytes), photo, centre)).toBe(false)

    const corrections = (await view(jobId)).body
    expect(corrections).toMatchObject({ kind: 'faces', blur_radius: 20, detected_faces: [face], faces: [face], parts: [] })

    // The same boxes: the same image.
    const same = await correct(jobId, { faces: JSON.stringify([face]) })
    expect(Buffer.from(same.body).equals(bytes)).toBe(true)

    const before = await balanceOf(owner)
    const missed = { x: 10, y: 400, width: 60, height: 60 }
    const answer = await correct(jobId, { faces: JSON.stringify([missed]) })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    const corrected = await pixelsOf(answer.body)
    expect(sameIn(corrected, photo, centre)).toBe(true) // the false face is no longer blurred
    expect(sameIn(corrected, photo, { x: 30, y: 420, width: 20, height: 20 })).toBe(false) // the missed one is
    expect(sameIn(corrected, photo, { x: 300, y: 0, width: 200, height: 60 })).toBe(true) // elsewhere untouched
    expect(await balanceOf(owner)).toBe(before)
    expect((await storedResult(jobId)).equals(Buffer.from(answer.body))).toBe(true)
    expect((await view(jobId)).body.faces).toEqual([{ ...missed, score: null }])
  })

  it('refuses a cutout\'s fields and boxes outside the picture', async () => {
    const { jobId } = await blurred()
    const cutoutField = await correct(jobId, { feather: '2' })
    expect([cutoutField.status, cutoutField.body.error]).toEqual([400, CUTOUT_FIELDS_ON_FACES_MESSAGE])
    const outside = await correct(jobId, { faces: JSON.stringify([{ x: 600, y: 600, width: 10, height: 10 }]) })
    expect(outside.status).toBe(400)
    const notBoxes = await correct(jobId, { faces: '{"x": 1}' })
    expect(notBoxes.status).toBe(400)
  })
})
