import { describe, expect, it } from 'vitest'
import type { EditView } from '../types'
import { FIELD, partField } from './edit-fields'
import { ADD_BOX_INCOMPLETE, boxOutside, EDGE_MESSAGES, FACE_MESSAGE, MASK_NOT_PNG, PART_MESSAGE, readCorrectionForm } from './edit-page.server'

const base: EditView = {
  jobId: '00000000-0000-4000-8000-000000000001',
  kind: 'cutout',
  tool: 'background-remover',
  width: 400,
  height: 300,
  filename: 'cat-cutout.png',
  resultUrl: '/api/results/r1',
  photoPreviewUrl: '/p.jpg',
  mattePreviewUrl: '/m.png',
  maskPreviewUrl: null,
  previewWidth: 400,
  previewHeight: 300,
  parts: [
    { id: 'a', box: { x: 0, y: 0, width: 10, height: 10 }, area: 80, meanAlpha: 0.9, keptByRefinement: true, decision: null, thumbnailUrl: '/t/a' },
    { id: 'b', box: { x: 20, y: 0, width: 10, height: 10 }, area: 60, meanAlpha: 0.6, keptByRefinement: false, decision: null, thumbnailUrl: '/t/b' },
  ],
  detectedFaces: [],
  faces: [],
  edges: { feather: 0, grow: 0, decontaminate: true },
  corrected: false,
  blurRadius: null,
  expiresAt: '2026-11-28T12:00:00.000Z',
}
const faces: EditView = { ...base, kind: 'faces', tool: 'face-blurrer', parts: [], mattePreviewUrl: null }

function form(entries: Array<[string, string | Blob]>): FormData {
  const f = new FormData()
  for (const [k, v] of entries) f.append(k, v)
  return f
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])

describe('readCorrectionForm: a cutout', () => {
  it('reads part choices for known parts, the edges (an unticked box is off) and keeps the stored mask', async () => {
    const reading = await readCorrectionForm(
      form([
        [partField('a'), 'remove'],
        [partField('b'), 'keep'],
        [partField('zzz'), 'keep'],
        [FIELD.edges, '1'],
        [FIELD.feather, '3'],
        [FIELD.grow, '-2'],
      ]),
      base,
    )
    expect(reading).toEqual({ ok: true, input: { mask: 'keep', parts: { a: 'remove', b: 'keep' }, edges: { feather: 3, grow: -2, decontaminate: false } } })
  })

  it('sends the edges only when the form had them, and the brush mask when it is a PNG', async () => {
    const reading = await readCorrectionForm(form([[FIELD.mask, new Blob([PNG], { type: 'image/png' })]]), base)
    expect(reading.ok && reading.input.edges).toBeUndefined()
    expect(reading.ok && Buffer.isBuffer(reading.input.mask)).toBe(true)
    expect(await readCorrectionForm(form([[FIELD.mask, new Blob(['GIF89a'])]]), base)).toEqual({ ok: false, error: MASK_NOT_PNG })
  })

  it('refuses edges out of range and a part choice that is neither keep nor remove, in words', async () => {
    expect(await readCorrectionForm(form([[FIELD.edges, '1'], [FIELD.feather, '99']]), base)).toEqual({ ok: false, error: EDGE_MESSAGES.feather })
    expect(await readCorrectionForm(form([[FIELD.edges, '1'], [FIELD.grow, '1.5']]), base)).toEqual({ ok: false, error: EDGE_MESSAGES.grow })
    expect(await readCorrectionForm(form([[partField('a'), 'maybe']]), base)).toEqual({ ok: false, error: PART_MESSAGE })
  })
})

describe('readCorrectionForm: faces', () => {
  it('the ticked boxes and the added one are the faces to blur; none ticked blurs none', async () => {
    const reading = await readCorrectionForm(
      form([
        [FIELD.face, '10,10,50,60'],
        [FIELD.addX, '100'],
        [FIELD.addY, '120'],
        [FIELD.addWidth, '40'],
        [FIELD.addHeight, '30'],
      ]),
      faces,
    )
    expect(reading).toEqual({
      ok: true,
      input: {
        faces: [
          { x: 10, y: 10, width: 50, height: 60 },
          { x: 100, y: 120, width: 40, height: 30 },
        ],
      },
    })
    expect(await readCorrectionForm(form([]), faces)).toEqual({ ok: true, input: { faces: [] } })
  })

  it('refuses a half-filled box, a box outside the image and a malformed face value', async () => {
    expect(await readCorrectionForm(form([[FIELD.addX, '1']]), faces)).toEqual({ ok: false, error: ADD_BOX_INCOMPLETE })
    const outside = form([
      [FIELD.addX, '390'],
      [FIELD.addY, '0'],
      [FIELD.addWidth, '20'],
      [FIELD.addHeight, '20'],
    ])
    expect(await readCorrectionForm(outside, faces)).toEqual({ ok: false, error: boxOutside(faces) })
    expect(await readCorrectionForm(form([[FIELD.face, 'a,b,c,d']]), faces)).toEqual({ ok: false, error: FACE_MESSAGE })
    expect(await readCorrectionForm(form([[FIELD.face, '0,0,0,5']]), faces)).toEqual({ ok: false, error: boxOutside(faces) })
  })
})
