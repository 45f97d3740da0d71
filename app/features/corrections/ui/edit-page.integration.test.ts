// The correction page (/edit/<job>) through its loader and action: its owner sees the view, anyone
// else the site's 404; the plain form (no JavaScript) and the form with the brush's mask both apply a
// correction for free and come back to the page; bad input is answered 400 in words, changing nothing.
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as blurFaces } from '~/routes/api.face-blur.blur'
import { action as editAction, loader as editLoader } from '~/routes/edit.$jobId'
import { balanceOf, fileOf, fixture, newUser, newVisitor, toolRequest, type TestCaller } from '../../../../tests/support/tools'
import { answerOf, BASE, formRequest, readResult, routeArgs } from '../../../../tests/support/requests'
import type { EditView } from '../types'
import { faceValue, FIELD, partField } from './edit-fields'
import { EDGE_MESSAGES } from './edit-page.server'

afterAll(() => stopBoss({ timeoutMs: 5_000 }))

let owner: TestCaller
beforeAll(async () => {
  owner = await newVisitor()
})

async function run(action: typeof removeBg, path: string, fields: Record<string, string | Blob>) {
  const answer = await readResult(await action(routeArgs(toolRequest(path, fields, owner.headers))))
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.headers.get('X-Facet-Job-Id')!
}

async function page(jobId: string, caller: TestCaller = owner) {
  return readResult(await answerOf(editLoader(routeArgs(new Request(`${BASE}/edit/${jobId}`, { headers: caller.headers }), { jobId }))))
}

async function post(jobId: string, fields: Record<string, string | Blob>) {
  return readResult(await answerOf(editAction(routeArgs(formRequest(`/edit/${jobId}`, fields, { headers: owner.headers }), { jobId }))))
}

async function opaqueShare(url: string): Promise<number> {
  const { loader } = await import('~/routes/api.results.$id')
  const id = url.split('/').pop()!
  const answer = await readResult(await loader(routeArgs(new Request(BASE + url, { headers: owner.headers }), { id })))
  const { data } = await sharp(Buffer.from(answer.body as ArrayBuffer)).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true })
  return data.filter((a) => a >= 128).length / data.length
}

describe('/edit/<job> for a cutout', () => {
  let jobId: string
  let view: EditView
  beforeAll(async () => {
    jobId = await run(removeBg, '/api/remove-bg/', { image: fileOf(fixture('photos/product-router-alpha-groundtruth.png'), 'router.png', 'image/png') })
    const shown = await page(jobId)
    expect(shown.status).toBe(200)
    view = shown.body.view
  })

  it('shows its owner the cutout, its parts and its previews; anyone else, and any other id, get the 404', async () => {
    expect(view).toMatchObject({ kind: 'cutout', width: 220, height: 203, previewWidth: 220, previewHeight: 203, maskPreviewUrl: null, corrected: false })
    expect(view.parts.length).toBeGreaterThan(0)
    expect((await page(jobId, await newUser())).status).toBe(404)
    expect((await page(jobId, await newVisitor())).status).toBe(404)
    expect((await page('not-a-job')).status).toBe(404)
    expect((await page('00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })

  it('applies the plain form (a part removed, the edges) for free and comes back to the page', async () => {
    const before = await balanceOf(owner)
    const shareBefore = await opaqueShare(view.resultUrl)
    const answer = await post(jobId, { [partField(view.parts[0]!.id)]: 'remove', [FIELD.edges]: '1', [FIELD.feather]: '1', [FIELD.grow]: '0', [FIELD.decontaminate]: 'on' })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('Location')).toBe(`/edit/${jobId}?applied=1`)
    const after = (await page(jobId)).body.view as EditView
    expect(after).toMatchObject({ corrected: true, edges: { feather: 1, grow: 0, decontaminate: true } })
    expect(after.parts[0]!.decision).toBe('remove')
    expect(await opaqueShare(after.resultUrl)).toBeLessThan(shareBefore / 2)
    expect(await balanceOf(owner)).toBe(before)
  })

  it('applies the brush mask sent with the form (JavaScript), and keeps it for the next visit', async () => {
    const mask = await sharp(Buffer.alloc(view.previewWidth * view.previewHeight, 255), { raw: { width: view.previewWidth, height: view.previewHeight, channels: 1 } })
      .png()
      .toBuffer()
    const shareBefore = await opaqueShare(view.resultUrl)
    const answer = await post(jobId, { [FIELD.edges]: '1', [FIELD.feather]: '0', [FIELD.grow]: '0', [FIELD.mask]: fileOf(mask, 'mask.png', 'image/png') })
    expect(answer.status).toBe(303)
    const after = (await page(jobId)).body.view as EditView
    expect(after.maskPreviewUrl).not.toBeNull()
    // White everywhere restores the whole photo (as far as the upload's own transparency goes).
    expect(await opaqueShare(after.resultUrl)).toBeGreaterThan(shareBefore * 1.5)
  })

  it('refuses edges out of range in words, changing nothing', async () => {
    const answer = await post(jobId, { [FIELD.edges]: '1', [FIELD.feather]: '50' })
    expect([answer.status, answer.body.error]).toEqual([400, EDGE_MESSAGES.feather])
    expect(((await page(jobId)).body.view as EditView).edges.feather).toBe(0)
  })
})

describe('/edit/<job> for a blur', () => {
  it('leaves the unticked faces sharp and blurs an added box, for free', async () => {
    const jobId = await run(blurFaces, '/api/face-blur/blur/', { image: fileOf(fixture('photos/group-nasa-astronaut-class-2.png'), 'class.png', 'image/png'), blur: '20' })
    const view = (await page(jobId)).body.view as EditView
    expect(view).toMatchObject({ kind: 'faces', width: 416, height: 290 })
    expect(view.detectedFaces).toHaveLength(8)
    const before = await balanceOf(owner)
    const form = new FormData()
    const kept = view.detectedFaces.slice(1).map(faceValue)
    for (const value of kept) form.append(FIELD.face, value)
    for (const [name, value] of [
      [FIELD.addX, '10'],
      [FIELD.addY, '10'],
      [FIELD.addWidth, '30'],
      [FIELD.addHeight, '30'],
    ]) form.append(name!, value!)
    const request = new Request(`${BASE}/edit/${jobId}`, { method: 'POST', headers: owner.headers, body: form })
    const answer = await readResult(await answerOf(editAction(routeArgs(request, { jobId }))))
    expect(answer.status, JSON.stringify(answer.body)).toBe(303)
    const after = (await page(jobId)).body.view as EditView
    expect(after.faces.map(faceValue)).toEqual([...kept, '10,10,30,30'])
    expect(await balanceOf(owner)).toBe(before)
  })
})
