// The enhancer's optional `denoise` field through the /api route: validated before any charge,
// used when valid, and answered with a note when the weak-denoise model is not installed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WDN_MISSING_NOTE, WDN_MODEL } from '~/features/tools/models/denoise-models.server'
import { requireModels, useModelsFolder } from '~/features/tools/models/fixtures.test-support'
import { SR_MODEL } from '~/features/tools/models/super-resolution.server'
import { action as enhanceAction } from '~/routes/api.image-scaler.scale'
import { readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, fixture, newVisitor, toolRequest, type TestCaller } from '../../../tests/support/tools'

vi.setConfig({ testTimeout: 120_000 })

const tinyPhoto = () => fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'face.jpg')

async function enhance(caller: TestCaller, fields: Record<string, string | Blob>) {
  return readResult(await enhanceAction(routeArgs(toolRequest('/api/image-scaler/scale/', fields, caller.headers))))
}

describe('POST /api/image-scaler/scale/ with denoise', () => {
  beforeAll(() => requireModels(SR_MODEL, WDN_MODEL))

  it('refuses a denoise that is not a number from 0 to 1, with 400 and no charge', async () => {
    const visitor = await newVisitor()
    for (const denoise of ['', 'abc', '-0.1', '1.5', '2', '1e-1', 'NaN', '0,5', 'Infinity']) {
      const answer = await enhance(visitor, { image: tinyPhoto(), denoise })
      expect(answer.status, `denoise=${JSON.stringify(denoise)}`).toBe(400)
      expect(answer.body.error).toBe('denoise must be a number from 0 to 1.')
    }
    expect(await balanceOf(visitor)).toBe(5)
  })

  it('accepts 0, 0.5 and 1, charges each run, and the strength changes the picture', async () => {
    const bodies = new Map<string, ArrayBuffer>()
    for (const denoise of ['0', '0.5', '1']) {
      const visitor = await newVisitor()
      const answer = await enhance(visitor, { image: tinyPhoto(), denoise })
      expect(answer.status, `denoise=${denoise}`).toBe(200)
      // A JPEG in, a JPEG out by default (decision 173).
      expect(answer.headers.get('content-type')).toBe('image/jpeg')
      expect(answer.headers.get('X-Facet-Note')).toBeNull()
      expect(await balanceOf(visitor)).toBe(3)
      bodies.set(denoise, answer.body as ArrayBuffer)
    }
    const same = (a: string, b: string) => Buffer.from(bodies.get(a)!).equals(Buffer.from(bodies.get(b)!))
    expect(same('0', '0.5')).toBe(false)
    expect(same('0.5', '1')).toBe(false)

    // Absent means the default (0.5): the same picture.
    const visitor = await newVisitor()
    const byDefault = await enhance(visitor, { image: tinyPhoto() })
    expect(byDefault.status).toBe(200)
    expect(Buffer.from(byDefault.body as ArrayBuffer).equals(Buffer.from(bodies.get('0.5')!))).toBe(true)
  })
})

describe('POST /api/image-scaler/scale/ without the wdn model', () => {
  useModelsFolder({ link: [SR_MODEL] })

  it('still enhances at any denoise, with the general model, and says so in X-Facet-Note', async () => {
    const visitor = await newVisitor()
    const answer = await enhance(visitor, { image: tinyPhoto(), denoise: '0.3' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Facet-Note')).toBe(WDN_MISSING_NOTE)
    expect(await balanceOf(visitor)).toBe(3)
  })

  it('a retry with the same Idempotency-Key repeats the note, without a second charge', async () => {
    const visitor = await newVisitor()
    const retry = { ...visitor, headers: { ...visitor.headers, 'idempotency-key': 'denoise-note' } }
    const first = await enhance(retry, { image: tinyPhoto(), denoise: '0.3' })
    const second = await enhance(retry, { image: tinyPhoto(), denoise: '0.3' })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.headers.get('Idempotent-Replayed')).toBe('true')
    expect(second.headers.get('X-Facet-Note')).toBe(WDN_MISSING_NOTE)
    expect(await balanceOf(visitor)).toBe(3)
  })
})
