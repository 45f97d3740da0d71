import sharp from 'sharp'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { RgbaImage } from './image'
import { enhanceImage, MODEL_INPUT_BUDGET, OUTPUT_CAP_PIXELS, planEnhancement } from './image-enhancer.server'
import { DEFAULT_DENOISE, WDN_MODEL } from './models/denoise-models.server'
import { decodePng, loadFixture, requireModels } from './models/fixtures.test-support'
import { runModel } from './models/registry.server'
import { SR_MODEL, TILE, upscale4x } from './models/super-resolution.server'
import { fineDetail, psnr } from './image-quality'

// Real models on a shared 2-core machine: a run can take seconds.
vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels(SR_MODEL))

describe('planEnhancement', () => {
  it('uses ×4 for small pictures and lowers the scale to stay within the output cap', () => {
    expect(planEnhancement(128, 128)).toMatchObject({ scale: 4, outputWidth: 512, modelWidth: 128 })
    expect(planEnhancement(1000, 1000).scale).toBe(4)
    expect(planEnhancement(1500, 1000).scale).toBe(3)
    expect(planEnhancement(2000, 1500).scale).toBe(2)
    expect(planEnhancement(4000, 3000).scale).toBe(1)
    for (const [w, h] of [[1500, 1000], [2000, 1500], [4000, 3000], [9000, 6000]]) {
      const plan = planEnhancement(w, h)
      expect(plan.outputWidth * plan.outputHeight).toBeLessThanOrEqual(Math.max(OUTPUT_CAP_PIXELS, w * h))
      // The model never runs on more than its budget, whatever the upload.
      expect(plan.modelWidth * plan.modelHeight).toBeLessThanOrEqual(MODEL_INPUT_BUDGET * 1.01)
    }
  })
})

describe('upscale4x', () => {
  it('tiles without seams: the same result as one run over the whole picture', async () => {
    // 340×200 spans 3×2 tiles of 128 px (smaller than production tiles, to keep the test quick).
    const tile = 128
    const cat = await loadFixture('noface-cat-chelsea.png', { width: 340, height: 200 })
    expect(cat.width).toBeGreaterThan(2 * tile)
    expect(cat.height).toBeGreaterThan(tile)
    expect(TILE).toBeGreaterThanOrEqual(tile)
    const rgb = await sharp(cat.data, { raw: { width: cat.width, height: cat.height, channels: 4 } }).removeAlpha().raw().toBuffer()
    const tiled = await upscale4x({ data: rgb, width: cat.width, height: cat.height, channels: 3 }, { tile })
    expect([tiled.image.width, tiled.image.height]).toEqual([cat.width * 4, cat.height * 4])

    const plane = cat.width * cat.height
    const whole = new Float32Array(3 * plane)
    for (let p = 0; p < plane; p++) for (let k = 0; k < 3; k++) whole[k * plane + p] = rgb[p * 3 + k] / 255
    const { output } = await runModel(SR_MODEL, whole, [1, 3, cat.height, cat.width])
    const reference = output.data as Float32Array
    const outPlane = plane * 16
    let total = 0
    let worst = 0
    for (let p = 0; p < outPlane; p++) {
      for (let k = 0; k < 3; k++) {
        const expected = Math.min(255, Math.max(0, Math.round(reference[k * outPlane + p] * 255)))
        const d = Math.abs(expected - tiled.image.data[p * 3 + k])
        total += d
        if (d > worst) worst = d
      }
    }
    expect(total / (outPlane * 3)).toBeLessThan(0.5)
    expect(worst).toBeLessThan(40)
  })
})

describe('enhanceImage', () => {
  it('enhances the degraded 128 px portrait ×4: close to the original and sharper than Lanczos', async () => {
    const input = await loadFixture('degraded-face-astronaut-128px-q35.jpg')
    const result = await enhanceImage(input)
    expect(result.scale).toBe(4)
    expect([result.width, result.height]).toEqual([512, 512])
    expect(result.modelMs).toBeGreaterThan(0)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height, output.channels]).toEqual([512, 512, 3])

    const original = await loadFixture('portrait-astronaut.png')
    const lanczos = await loadFixture('degraded-face-astronaut-128px-q35.jpg', { width: 512, height: 512 })
    expect(psnr(output, original)).toBeGreaterThan(20)
    expect(fineDetail(output)).toBeGreaterThan(fineDetail(lanczos) * 1.1)
  })

  it('enhances at the denoise strength asked for (default 0.5), each one a different picture', async () => {
    requireModels(WDN_MODEL)
    const input = await loadFixture('noface-coffee.png', { width: 64, height: 48 })
    const outputs = new Map<number, RgbaImage>()
    for (const denoise of [0, 0.5, 1]) {
      const result = await enhanceImage(input, { denoise })
      expect([result.denoise, result.note]).toEqual([denoise, null])
      outputs.set(denoise, await decodePng(result.bytes))
    }
    const byDefault = await enhanceImage(input)
    expect(byDefault.denoise).toBe(DEFAULT_DENOISE)
    expect((await decodePng(byDefault.bytes)).data.equals(outputs.get(DEFAULT_DENOISE)!.data)).toBe(true)
    const differs = (a: RgbaImage, b: RgbaImage) => a.data.some((v, i) => v !== b.data[i])
    expect(differs(outputs.get(0)!, outputs.get(0.5)!)).toBe(true)
    expect(differs(outputs.get(0.5)!, outputs.get(1)!)).toBe(true)
    // The blend is nearer to either end than the two ends are to each other.
    expect(psnr(outputs.get(0.5)!, outputs.get(1)!)).toBeGreaterThan(psnr(outputs.get(0)!, outputs.get(1)!))
    expect(psnr(outputs.get(0.5)!, outputs.get(0)!)).toBeGreaterThan(psnr(outputs.get(0)!, outputs.get(1)!))
  })

  it('stops when its signal is aborted (a run past the queue time limit)', async () => {
    const input = await loadFixture('noface-cat-chelsea.png')
    const controller = new AbortController()
    controller.abort()
    await expect(enhanceImage(input, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('keeps transparency, enlarging the alpha channel', async () => {
    const router = await loadFixture('product-router-alpha-groundtruth.png')
    const result = await enhanceImage(router)
    expect(result.scale).toBe(4)
    const output = await decodePng(result.bytes)
    expect([output.width, output.height, output.channels]).toEqual([880, 812, 4])
    expect(output.data[3]).toBe(0)
    // The router's body stays opaque: sample the same spot, ×4.
    const [x, y] = [110, 140]
    expect(router.data[(y * router.width + x) * 4 + 3]).toBe(255)
    expect(output.data[(y * 4 * output.width + x * 4) * 4 + 3]).toBeGreaterThan(240)
  })
})
