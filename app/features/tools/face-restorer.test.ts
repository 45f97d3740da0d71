import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { detectFaces } from './face-detector.server'
import { engineNote, planRestoration, restoreFaces, similarityTransform } from './face-restorer.server'
import { fineDetail, psnr } from './image-quality'
import { decodePng, loadFixture, meanDifference, PHOTOS, requireModels, useModelsFolder } from './models/fixtures.test-support'
import { resetConfigForTests } from '~/config.server'
import { unaryOnnxModel } from './models/tiny-onnx.test-support'

// Real models on a shared 2-core machine: a run can take seconds.
vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels('yunet', 'realesr-general-x4v3', 'realesr-general-wdn-x4v3'))

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

/** The original astronaut at `size`, and the degraded fixture enlarged 2× by Lanczos alone: the bar to beat. */
async function references(fixture: string, original: { left: number; top: number; width: number; height: number } | null, size: number) {
  let pipeline = sharp(path.join(PHOTOS, 'portrait-astronaut.png'))
  if (original) pipeline = pipeline.extract(original)
  const { data } = await pipeline.resize(size, size, { kernel: 'lanczos3' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { original: { data, width: size, height: size }, lanczos: await loadFixture(fixture, { width: size, height: size }) }
}

describe('restoreFaces in Fallback detail mode (no GFPGAN installed)', () => {
  it('restores the degraded 128 px portrait at 2×, sharper and nearer the original than Lanczos ×2', async () => {
    const input = await loadFixture('degraded-face-astronaut-128px-q35.jpg')
    const result = await restoreFaces(input)
    expect(result.gfpganAvailable).toBe(false)
    expect(result.facesFound).toBe(1)
    expect(result.scale).toBe(2)
    expect(result.note).toBe(engineNote(false, planRestoration(128, 128)))
    expect(result.note).toMatch(/^Fallback detail mode \(GFPGAN is not installed\): .* enlarged 2× by Real-ESRGAN x4v3\.$/)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([256, 256])
    const { original, lanczos } = await references('degraded-face-astronaut-128px-q35.jpg', null, 256)
    // Measured: 23.3 dB against Lanczos's 22.5, detail 8.3 against 7.2 (the original has 9.9).
    expect(psnr(output, original)).toBeGreaterThan(psnr(lanczos, original) + 0.5)
    expect(fineDetail(output)).toBeGreaterThan(fineDetail(lanczos) * 1.1)
  })

  it('restores the tiny 64 px face crop at 2×, beating Lanczos ×2 too', async () => {
    const input = await loadFixture('degraded-face-crop-64px.jpg')
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(1)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([128, 128])
    // The fixture is the original's (150, 10, 200, 200) crop at 64 px (FIXTURES.md).
    const { original, lanczos } = await references('degraded-face-crop-64px.jpg', { left: 150, top: 10, width: 200, height: 200 }, 128)
    // Measured: 25.5 dB against Lanczos's 23.9, detail 5.7 against 4.7.
    expect(psnr(output, original)).toBeGreaterThan(psnr(lanczos, original) + 1)
    expect(fineDetail(output)).toBeGreaterThan(fineDetail(lanczos) * 1.1)
  })

  it('keeps transparency at 2×, enlarging the alpha channel', async () => {
    const face = await loadFixture('degraded-face-crop-64px.jpg')
    const input = { ...face, data: Buffer.from(face.data.map((v, i) => (i % 4 === 3 ? (i < face.data.length / 2 ? 128 : 255) : v))) }
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(1)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height, output.channels]).toEqual([128, 128, 4])
    expect([output.data[3], output.data[output.data.length - 1]]).toEqual([128, 255])
  })

  it('returns a picture without a face unchanged, facesFound 0', async () => {
    const input = await loadFixture('noface-cat-chelsea.png')
    const result = await restoreFaces(input)
    expect([result.facesFound, result.scale, result.note]).toEqual([0, 1, null])
    const output = await decodePng(result.bytes)
    expect(Buffer.compare(output.data, input.data)).toBe(0)
  })

  it('handles every face of a group photo, each reworked beyond the enlarged background', async () => {
    const input = await loadFixture('group-nasa-astronaut-class-2.png')
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(8)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([832, 580])
    const lanczos = await loadFixture('group-nasa-astronaut-class-2.png', { width: 832, height: 580 })
    const { faces } = await detectFaces(input)
    const doubled = (f: { x: number; y: number; width: number; height: number }) => ({ x: f.x * 2, y: f.y * 2, width: f.width * 2, height: f.height * 2 })
    for (const face of faces) expect(meanDifference(lanczos, output, doubled(face))).toBeGreaterThan(0.5)
  })

  it('over 0.75 MP the background is enlarged by a plain resize (said in the note), the faces by the model', async () => {
    const input = await loadFixture('portrait-astronaut.png', { width: 900, height: 900 })
    const result = await restoreFaces(input)
    expect(result.facesFound).toBe(1)
    expect(result.note).toMatch(/the rest of the picture enlarged 2× by a plain Lanczos resize \(pictures over 0.75 megapixels skip the model/)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([1800, 1800])
    const { data } = await sharp(input.data, { raw: { width: 900, height: 900, channels: 4 } })
      .resize(1800, 1800, { kernel: 'lanczos3' })
      .raw()
      .toBuffer({ resolveWithObject: true })
    const lanczos = { data, width: 1800, height: 1800 }
    const [face] = (await detectFaces(input)).faces
    const core = { x: (face.x + face.width * 0.2) * 2, y: (face.y + face.height * 0.2) * 2, width: face.width * 1.2, height: face.height * 1.2 }
    expect(meanDifference(lanczos, output, core)).toBeGreaterThan(1)
    // Far from the face: the background is the Lanczos enlargement (up to the resize's rounding).
    expect(meanDifference(lanczos, output, { x: 0, y: 1600, width: 200, height: 200 })).toBeLessThan(1)
  })
})

describe('planRestoration', () => {
  it('2× with the model up to 0.75 MP, 2× by resize up to 4 MP (the 16 MP output cap), the input size beyond', () => {
    expect(planRestoration(866, 866)).toEqual({ scale: 2, outputWidth: 1732, outputHeight: 1732, background: 'model' })
    expect(planRestoration(867, 866)).toMatchObject({ scale: 2, background: 'resize' })
    expect(planRestoration(2000, 2000)).toEqual({ scale: 2, outputWidth: 4000, outputHeight: 4000, background: 'resize' })
    expect(planRestoration(2001, 2000)).toEqual({ scale: 1, outputWidth: 2001, outputHeight: 2000, background: 'none' })
    expect(engineNote(true, planRestoration(3000, 2000))).toBe(
      'Faces restored by GFPGAN; the picture keeps its size (at 2× it would pass the 16 megapixel output limit).',
    )
  })
})

describe('restoreFaces with a GFPGAN model installed', () => {
  // A stand-in with GFPGAN's signature that negates its input: in -1..1 space that inverts the
  // colours, so the test can see exactly where the restored face was pasted back.
  useModelsFolder({
    link: ['yunet', 'realesr-general-x4v3', 'realesr-general-wdn-x4v3'],
    standIns: () => ({ gfpgan: unaryOnnxModel('Neg', [1, 3, 512, 512]) }),
  })
  // GFPGAN's weights are non-commercial: the operator must allow them (segmenters.test.ts proves the refusal).
  beforeAll(() => {
    process.env.ALLOW_NONCOMMERCIAL_MODELS = 'true'
    resetConfigForTests()
  })
  afterAll(() => {
    delete process.env.ALLOW_NONCOMMERCIAL_MODELS
    resetConfigForTests()
  })

  it('aligns the face, runs the model and pastes the result back at 2× where the face is', async () => {
    const input = await loadFixture('portrait-astronaut.png')
    const [face] = (await detectFaces(input)).faces
    const result = await restoreFaces(input)
    expect(result.gfpganAvailable).toBe(true)
    expect(result.facesFound).toBe(1)
    expect(result.note).toBe('Faces restored by GFPGAN; the rest of the picture enlarged 2× by Real-ESRGAN x4v3.')
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([1024, 1024])

    // Between the eyes and the mouth the output is the input's negative (up to resampling).
    const core = { x: (face.x + face.width * 0.3) * 2, y: (face.y + face.height * 0.35) * 2, width: face.width * 0.8, height: face.height * 0.6 }
    const enlarged = await loadFixture('portrait-astronaut.png', { width: 1024, height: 1024 })
    const inverted = { ...enlarged, data: Buffer.from(enlarged.data.map((v, i) => (i % 4 === 3 ? v : 255 - v))) }
    expect(meanDifference(inverted, output, core)).toBeLessThan(20)
    expect(meanDifference(enlarged, output, core)).toBeGreaterThan(60)
    // Far from the face (the bottom corners): the enlarged picture (by the model, so not exactly Lanczos's), not the negative.
    for (const corner of [{ x: 0, y: 960, width: 64, height: 64 }, { x: 960, y: 960, width: 64, height: 64 }]) {
      expect(meanDifference(enlarged, output, corner)).toBeLessThan(15)
      expect(meanDifference(inverted, output, corner)).toBeGreaterThan(60)
    }
  })
})
