import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { detectFaces } from './face-detector.server'
import { restoreFaces, similarityTransform } from './face-restorer.server'
import { decodePng, loadFixture, meanDifference, requireModels, useModelsFolder } from './models/fixtures.test-support'
import { unaryOnnxModel } from './models/tiny-onnx.test-support'

// Real models on a shared 2-core machine: a run can take seconds.
vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels('yunet', 'realesr-general-x4v3'))

describe('similarityTransform', () => {
  it('recovers a known rotation, scale and shift', () => {
    const from: [number, number][] = [[10, 20], [50, 22], [30, 40], [15, 60], [45, 61]]
    const angle = 0.3
    const scale = 2.5
    const [a, b] = [scale * Math.cos(angle), scale * Math.sin(angle)]
    const to = from.map(([x, y]) => [a * x - b * y + 7, b * x + a * y - 3] as [number, number])
    const t = similarityTransform(from, to)
    expect(t.a).toBeCloseTo(a, 6)
    expect(t.b).toBeCloseTo(b, 6)
    expect(t.tx).toBeCloseTo(7, 6)
    expect(t.ty).toBeCloseTo(-3, 6)
  })
})

describe('restoreFaces in Fallback detail mode (no GFPGAN installed)', () => {
  it('reworks the face of the degraded portrait and nothing far from it', async () => {
    const input = await loadFixture('degraded-face-astronaut-128px-q35.jpg')
    const [face] = (await detectFaces(input)).faces
    const result = await restoreFaces(input)
    expect(result.gfpganAvailable).toBe(false)
    expect(result.facesFound).toBe(1)
    expect(result.modelMs).toBeGreaterThan(0)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([128, 128])
    const core = { x: face.x + face.width * 0.2, y: face.y + face.height * 0.2, width: face.width * 0.6, height: face.height * 0.6 }
    expect(meanDifference(input, output, core)).toBeGreaterThan(1)
    expect(meanDifference(input, output, { x: 0, y: 100, width: 28, height: 28 })).toBe(0)
  })

  it('returns a picture without a face unchanged, facesFound 0', async () => {
    const input = await loadFixture('noface-cat-chelsea.png')
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(0)
    const output = await decodePng(result.bytes)
    expect(Buffer.compare(output.data, input.data)).toBe(0)
  })

  it('handles every face of a group photo', async () => {
    const input = await loadFixture('group-nasa-astronaut-class-2.png')
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(8)
    const output = await decodePng(result.bytes)
    const { faces } = await detectFaces(input)
    for (const face of faces) expect(meanDifference(input, output, face)).toBeGreaterThan(0.5)
  })
})

describe('restoreFaces with a GFPGAN model installed', () => {
  // A stand-in with GFPGAN's signature that negates its input: in -1..1 space that inverts the
  // colours, so the test can see exactly where the restored face was pasted back.
  useModelsFolder({ link: ['yunet', 'realesr-general-x4v3'], standIns: () => ({ gfpgan: unaryOnnxModel('Neg', [1, 3, 512, 512]) }) })

  it('aligns the face, runs the model and pastes the result back where the face is', async () => {
    const input = await loadFixture('portrait-astronaut.png')
    const [face] = (await detectFaces(input)).faces
    const result = await restoreFaces(input)
    expect(result.gfpganAvailable).toBe(true)
    expect(result.facesFound).toBe(1)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([512, 512])

    // Between the eyes and the mouth the output is the input's negative (up to resampling).
    const core = { x: face.x + face.width * 0.3, y: face.y + face.height * 0.35, width: face.width * 0.4, height: face.height * 0.3 }
    const inverted = { ...input, data: Buffer.from(input.data.map((v, i) => (i % 4 === 3 ? v : 255 - v))) }
    expect(meanDifference(inverted, output, core)).toBeLessThan(20)
    expect(meanDifference(input, output, core)).toBeGreaterThan(60)
    // Far from the face (the bottom corners) nothing changed.
    expect(meanDifference(input, output, { x: 0, y: 480, width: 32, height: 32 })).toBe(0)
    expect(meanDifference(input, output, { x: 480, y: 480, width: 32, height: 32 })).toBe(0)
  })
})
