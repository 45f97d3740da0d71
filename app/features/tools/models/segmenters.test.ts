// The background models' definitions: each one's pre-processing (known pixels → known tensor values),
// post-processing (known outputs → known matte), input sizes, the `model` choice's selection with
// different sets of installed models (tiny ONNX stand-ins with each model's signature, run in the
// real inference threads), and the refusal of weights not licensed for commercial use.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { predictMatte, removeBackground } from '../background-remover.server'
import type { RgbaImage } from '../image'
import { decodePng, useModelsFolder } from './fixtures.test-support'
import { MODELS, modelEntry } from './manifest'
import { listModels } from './model-list.server'
import { toChwTensor } from './pixels.server'
import { gfpganAvailable, loadModel, ModelLicenceError, modelStatus, runModel, runSession } from './registry.server'
import { BIREFNET_LITE, installedSegmenters, ISNET, MODNET, modnetInputSize, outputToMatte, segmenterFor, U2NETP } from './segmenters.server'
import { channelMeanOnnxModel, onnxModel, unaryOnnxModel } from './tiny-onnx.test-support'
import { checkModelFile } from './verify.server'

vi.setConfig({ testTimeout: 120_000 })

/** One pixel's tensor values (R, G, B) after a segmenter's normalisation, for a picture whose brightest byte is `maxByte`. */
function normalised(segmenter: typeof U2NETP, rgb: [number, number, number], maxByte: number): number[] {
  const { data } = toChwTensor({ data: Buffer.from(rgb), width: 1, height: 1, channels: 3 }, segmenter.normalise(maxByte))
  return [...data]
}

/** A black picture with a bright card in the middle (opaque everywhere). */
function card(width: number, height: number, value = 240): RgbaImage {
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4
      const inside = x >= width / 3 && x < (2 * width) / 3 && y >= height / 4 && y < (3 * height) / 4
      data.fill(inside ? value : 0, i, i + 3)
      data[i + 3] = 255
    }
  }
  return { data, width, height }
}

describe('pre-processing (the references: rembg sessions, MODNet demo)', () => {
  it('U²-Netp and BiRefNet: divide by the brightest byte, then ImageNet mean and std', () => {
    const expected = [(1 - 0.485) / 0.229, (0.5 - 0.456) / 0.224, (0 - 0.406) / 0.225]
    for (const segmenter of [U2NETP, BIREFNET_LITE]) {
      normalised(segmenter, [200, 100, 0], 200).forEach((v, k) => expect(v).toBeCloseTo(expected[k], 5))
    }
  })

  it('ISNet: divide by the brightest byte, mean 0.5, std 1', () => {
    normalised(ISNET, [255, 51, 0], 255).forEach((v, k) => expect(v).toBeCloseTo([0.5, -0.3, -0.5][k], 5))
    // A dark picture is stretched as rembg does: its brightest byte becomes 1.
    normalised(ISNET, [100, 50, 0], 100).forEach((v, k) => expect(v).toBeCloseTo([0.5, 0, -0.5][k], 5))
  })

  it('MODNet: (px/255 − 0.5)/0.5, whatever the brightest byte', () => {
    normalised(MODNET, [255, 0, 51], 100).forEach((v, k) => expect(v).toBeCloseTo([1, -1, -0.6][k], 5))
  })

  it('input sizes: the square models stretch to their side; MODNet puts the short side at 512 in multiples of 32', () => {
    expect(U2NETP.inputSize(4000, 3000)).toEqual({ width: 320, height: 320 })
    expect(ISNET.inputSize(10, 5000)).toEqual({ width: 1024, height: 1024 })
    expect(BIREFNET_LITE.inputSize(640, 427)).toEqual({ width: 1024, height: 1024 })
    expect(modnetInputSize(4000, 3000)).toEqual({ width: 672, height: 512 }) // 682.7 floored to 672
    expect(modnetInputSize(300, 200)).toEqual({ width: 768, height: 512 }) // small pictures are enlarged
    expect(modnetInputSize(1000, 3000)).toEqual({ width: 512, height: 1536 })
    expect(modnetInputSize(20_000, 100)).toEqual({ width: 2048, height: 512 }) // a panorama's long side is capped
  })
})

describe('post-processing', () => {
  it('U²-Netp and ISNet: min-max normalised to 0..255', () => {
    expect([...outputToMatte(new Float32Array([0.2, 0.6, 1.0]), U2NETP.output)]).toEqual([0, 128, 255])
    expect([...outputToMatte(new Float32Array([0.3, 0.3]), ISNET.output)]).toEqual([0, 0])
  })

  it('BiRefNet: a sigmoid on the logits before the min-max (not a linear stretch of them)', () => {
    // sigmoid(−4, 0, 1) = 0.018, 0.5, 0.731 → 0, 0.676, 1; a linear stretch would give 0.8 in the middle.
    expect([...outputToMatte(new Float32Array([-4, 0, 1]), BIREFNET_LITE.output)]).toEqual([0, 172, 255])
  })

  it('MODNet: the output is alpha, clamped, never stretched', () => {
    expect([...outputToMatte(new Float32Array([-0.1, 0.25, 0.5, 1.2]), MODNET.output)]).toEqual([0, 64, 128, 255])
  })
})

describe('the manifest', () => {
  it('lists each background model with a licence, a commercial-use flag and a public source; GFPGAN is non-commercial', () => {
    for (const id of [U2NETP.id, ISNET.id, BIREFNET_LITE.id, MODNET.id]) {
      const entry = modelEntry(id)
      expect(entry.tools).toEqual(['background-remover'])
      expect(entry.commercialUse).toBe(true)
      expect(entry.url).toMatch(/^https:\/\//)
    }
    expect(modelEntry('gfpgan').commercialUse).toBe(false)
    expect(MODELS.every((m) => typeof m.commercialUse === 'boolean')).toBe(true)
  })
})

describe('with only U²-Netp installed', () => {
  useModelsFolder({ link: ['u2netp'] })

  it('auto and fast take U²-Netp silently; quality and portrait fall back to it with a note', () => {
    expect(installedSegmenters().map((s) => s.id)).toEqual(['u2netp'])
    expect(segmenterFor('auto')).toEqual({ segmenter: U2NETP, note: null })
    expect(segmenterFor('fast')).toEqual({ segmenter: U2NETP, note: null })
    expect(segmenterFor('quality').segmenter).toBe(U2NETP)
    expect(segmenterFor('quality').note).toBe('model=quality: no quality model (BiRefNet-lite, ISNet general-use) is installed on this server, so U²-Netp was used.')
    expect(segmenterFor('portrait').segmenter).toBe(U2NETP)
    expect(segmenterFor('portrait').note).toBe('model=portrait: the portrait model (MODNet) is not installed on this server, so U²-Netp was used.')
  })

  it('a run asked for quality says which model made it and why', async () => {
    const out = await removeBackground(card(120, 90), { model: 'quality' })
    expect(out.model).toBe('u2netp')
    expect(out.note).toMatch(/^model=quality: no quality model/)
  })
})

describe('with ISNet installed beside U²-Netp', () => {
  useModelsFolder({ link: ['u2netp'], standIns: () => ({ 'isnet-general-use': channelMeanOnnxModel(1024) }) })

  it('auto and quality take ISNet; portrait falls back to ISNet with a note; fast stays on U²-Netp', () => {
    expect(segmenterFor('auto')).toEqual({ segmenter: ISNET, note: null })
    expect(segmenterFor('quality')).toEqual({ segmenter: ISNET, note: null })
    expect(segmenterFor('portrait').segmenter).toBe(ISNET)
    expect(segmenterFor('portrait').note).toMatch(/so ISNet general-use was used\.$/)
    expect(segmenterFor('fast').segmenter).toBe(U2NETP)
  })
})

describe('with every background model installed (stand-ins of the same signatures)', () => {
  const folder = useModelsFolder({
    link: ['u2netp'],
    standIns: () => ({
      'isnet-general-use': channelMeanOnnxModel(1024),
      'birefnet-lite': channelMeanOnnxModel(1024),
      modnet: channelMeanOnnxModel('dynamic'),
    }),
  })

  it('the stand-ins pass the installer check of the manifest entries (MODNet with symbolic height and width)', async () => {
    for (const id of ['birefnet-lite', 'modnet']) {
      const entry = modelEntry(id)
      const check = await checkModelFile(entry, path.join(folder, entry.file), { allowUnpinned: true })
      expect(check.problems, id).toEqual([])
    }
  })

  it('auto and quality take BiRefNet-lite, portrait MODNet, fast U²-Netp; all four are listed best first', () => {
    expect(installedSegmenters().map((s) => s.id)).toEqual(['birefnet-lite', 'isnet-general-use', 'u2netp', 'modnet'])
    expect(segmenterFor('auto')).toEqual({ segmenter: BIREFNET_LITE, note: null })
    expect(segmenterFor('quality')).toEqual({ segmenter: BIREFNET_LITE, note: null })
    expect(segmenterFor('portrait')).toEqual({ segmenter: MODNET, note: null })
    expect(segmenterFor('fast')).toEqual({ segmenter: U2NETP, note: null })
  })

  it('MODNet runs at its own input size and its output is used as alpha (a mid grey stays mid grey)', async () => {
    // The stand-in answers the mean of its input: for a flat 191 that is 191/127.5 − 1 = 0.498 → 127.
    const grey: RgbaImage = { data: Buffer.alloc(300 * 200 * 4, 191), width: 300, height: 200 }
    for (let i = 3; i < grey.data.length; i += 4) grey.data[i] = 255
    const { matte, width, height } = await predictMatte(grey, MODNET)
    expect([width, height]).toEqual([768, 512])
    expect(matte.length).toBe(768 * 512)
    expect(matte[0]).toBe(127)
    expect(matte[matte.length - 1]).toBe(127)
  })

  it('BiRefNet-lite runs at 1024² and its matte is stretched to 0..255 (the card opaque, the rest clear)', async () => {
    const { matte, width, height } = await predictMatte(card(300, 200), BIREFNET_LITE)
    expect([width, height]).toEqual([1024, 1024])
    // The resize's ringing at the card's edge holds the maximum, so the middle is just under it.
    expect(matte[512 * 1024 + 512]).toBeGreaterThan(240)
    expect(matte.reduce((a, b) => Math.max(a, b), 0)).toBe(255)
    expect(matte[10 * 1024 + 10]).toBe(0)
  })

  it('a portrait run cuts out with MODNet at the original size and names it', async () => {
    const input = card(300, 200, 255)
    const out = await removeBackground(input, { model: 'portrait' })
    expect(out.model).toBe('modnet')
    expect(out.note).toBeNull()
    const png = await decodePng(out.bytes)
    expect([png.width, png.height]).toEqual([300, 200])
    expect(png.data[(100 * 300 + 150) * 4 + 3]).toBe(255) // the card
    expect(png.data[(10 * 300 + 10) * 4 + 3]).toBe(0) // the black around it: MODNet's −1 → alpha 0
  })

  it('GET /api/models/ says which are installed, their licence, size and the choices that land on them', async () => {
    const models = await listModels()
    const byId = Object.fromEntries(models.map((m) => [m.id, m]))
    expect(byId['birefnet-lite']).toMatchObject({ installed: true, usable: true, license: 'MIT', commercial_use: true, choices: ['auto', 'quality'], approx_megabytes: 224 })
    expect(byId.modnet).toMatchObject({ installed: true, choices: ['portrait'], tools: ['background-remover'] })
    expect(byId.modnet.bytes).toBe(channelMeanOnnxModel('dynamic').length)
    expect(byId.u2netp).toMatchObject({ installed: true, optional: false, choices: ['auto', 'fast'], bytes: 4534347 })
    expect(byId.gfpgan).toMatchObject({ installed: false, usable: false, commercial_use: false, choices: [], note: null })
  })
})

describe('a background model with side outputs (as ISNet exports answer: the matte first, then more)', () => {
  // The matte (the channels' mean), then a side output (its negation) that no caller reads.
  const withSideOutput = () =>
    onnxModel({
      nodes: [
        { op: 'Conv', inputs: ['input', 'weight'], outputs: ['output'] },
        { op: 'Neg', inputs: ['output'], outputs: ['side'] },
      ],
      inputs: [{ name: 'input', shape: [1, 3, 1024, 1024] }],
      outputs: [
        { name: 'output', shape: [1, 1, 1024, 1024] },
        { name: 'side', shape: [1, 1, 1024, 1024] },
      ],
      initializers: [{ name: 'weight', dims: [1, 3, 1, 1], values: [1 / 3, 1 / 3, 1 / 3] }],
    })
  useModelsFolder({ link: ['u2netp'], standIns: () => ({ 'isnet-general-use': withSideOutput() }) })

  it('a run fetches the first output alone (the manifest promises no other); a session run asked for everything answers both', async () => {
    const input = () => new Float32Array(3 * 1024 * 1024).fill(0.3)
    const { output, outputs } = await runModel(ISNET.id, input(), [1, 3, 1024, 1024])
    expect(Object.keys(outputs)).toEqual(['output'])
    expect((output.data as Float32Array)[0]).toBeCloseTo(0.3, 5)
    const all = await runSession(await loadModel(ISNET.id), input(), [1, 3, 1024, 1024])
    expect(Object.keys(all.outputs).sort()).toEqual(['output', 'side'])
  })

  it('the remover reads the matte from the first output', async () => {
    // The side output (the negation) would make the card clear and the black around it opaque.
    const { matte } = await predictMatte(card(300, 200), ISNET)
    expect(matte[512 * 1024 + 512]).toBeGreaterThan(230)
    expect(matte[10 * 1024 + 10]).toBe(0)
  })
})

describe('weights not licensed for commercial use (GFPGAN)', () => {
  useModelsFolder({ link: [], standIns: () => ({ gfpgan: unaryOnnxModel('Neg', [1, 3, 512, 512]) }) })
  afterAll(() => {
    delete process.env.ALLOW_NONCOMMERCIAL_MODELS
    resetConfigForTests()
  })

  it('refuse to load by default: not available, and the operator is told why', async () => {
    expect(gfpganAvailable()).toBe(false)
    await expect(loadModel('gfpgan')).rejects.toThrow(ModelLicenceError)
    await expect(loadModel('gfpgan')).rejects.toThrow('it is not loaded unless ALLOW_NONCOMMERCIAL_MODELS=true')
    const state = (await modelStatus()).find((m) => m.id === 'gfpgan')
    expect(state).toMatchObject({ installed: true, usable: false, commercialUse: false })
    expect(state?.note).toMatch(/licensed CC BY-NC-SA 4\.0 \(non-commercial\)/)
    expect((await listModels()).find((m) => m.id === 'gfpgan')).toMatchObject({ installed: true, usable: false, note: state?.note })
  })

  it('load when the operator sets ALLOW_NONCOMMERCIAL_MODELS=true', async () => {
    process.env.ALLOW_NONCOMMERCIAL_MODELS = 'true'
    resetConfigForTests()
    expect(gfpganAvailable()).toBe(true)
    const loaded = await loadModel('gfpgan')
    expect(loaded.inputName).toBe('input')
    expect((await modelStatus()).find((m) => m.id === 'gfpgan')).toMatchObject({ installed: true, usable: true })
  })
})

beforeAll(() => {
  delete process.env.ALLOW_NONCOMMERCIAL_MODELS
  resetConfigForTests()
})
