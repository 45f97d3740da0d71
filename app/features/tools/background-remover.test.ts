import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { activeSegmenter, DEFAULT_REFINEMENT, defaultRefinementFor, removeBackground, SAMPLED_EDGES_MAX_PIXELS } from './background-remover.server'
import type { RgbaImage } from './image'
import { decodePng, loadFixture, requireModels, useModelsFolder } from './models/fixtures.test-support'
import { modelEntry } from './models/manifest'
import { refineMatte } from './models/matte.server'
import { channelMeanOnnxModel } from './models/tiny-onnx.test-support'
import { checkModelFile } from './models/verify.server'
import { backgroundRemoverRunner } from './runners/background-remover.server'

// Real models on a shared 2-core machine: a run can take seconds.
vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels('u2netp'))

describe('the default refinement', () => {
  it('samples the edges up to SAMPLED_EDGES_MAX_PIXELS, and past it (a 12 MP camera photo) keeps to classic', () => {
    expect(DEFAULT_REFINEMENT).toBe('sampled')
    expect(defaultRefinementFor(1000, 1000)).toBe('sampled')
    expect(defaultRefinementFor(2000, SAMPLED_EDGES_MAX_PIXELS / 2000)).toBe('sampled')
    expect(defaultRefinementFor(2000, SAMPLED_EDGES_MAX_PIXELS / 2000 + 1)).toBe('classic')
    expect(defaultRefinementFor(4032, 3024)).toBe('classic')
  })
})

async function routerOn(colour: string): Promise<{ input: RgbaImage; truth: Buffer }> {
  const truth = await loadFixture('product-router-alpha-groundtruth.png')
  const { data } = await sharp(truth.data, { raw: { width: truth.width, height: truth.height, channels: 4 } })
    .flatten({ background: colour })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { input: { data, width: truth.width, height: truth.height }, truth: truth.data }
}

function alphaIoU(a: Buffer, b: Buffer): number {
  let inter = 0
  let union = 0
  for (let i = 3; i < a.length; i += 4) {
    const x = a[i] >= 128
    const y = b[i] >= 128
    if (x && y) inter++
    if (x || y) union++
  }
  return inter / union
}

/** Transparent pixels the image border cannot reach without crossing the opaque subject. */
function enclosedTransparentPixels(image: RgbaImage): number {
  const { width, height } = image
  const clear = (p: number) => image.data[p * 4 + 3] < 128
  const seen = new Uint8Array(width * height)
  const queue: number[] = []
  for (let x = 0; x < width; x++) queue.push(x, (height - 1) * width + x)
  for (let y = 0; y < height; y++) queue.push(y * width, y * width + width - 1)
  for (const p of queue) if (clear(p)) seen[p] = 1
  const stack = queue.filter((p) => seen[p])
  while (stack.length > 0) {
    const p = stack.pop()!
    const x = p % width
    for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
      if (q >= 0 && q < width * height && !seen[q] && clear(q)) {
        seen[q] = 1
        stack.push(q)
      }
    }
  }
  let enclosed = 0
  for (let p = 0; p < width * height; p++) if (clear(p) && !seen[p]) enclosed++
  return enclosed
}

describe('removeBackground', () => {
  it('cuts out the router on white with IoU ≥ 0.90 against its known matte', async () => {
    const { input, truth } = await routerOn('#ffffff')
    const result = await removeBackground(input)
    const output = await decodePng(result.bytes)
    expect(alphaIoU(output.data, truth)).toBeGreaterThanOrEqual(0.9)
  })

  it('keeps no colour of the cut-away background in the file (fully transparent pixels are 0, 0, 0, 0)', async () => {
    const { input } = await routerOn('#0000ff')
    const output = await decodePng((await removeBackground(input)).bytes)
    let transparent = 0
    let tinted = 0
    for (let i = 0; i < output.data.length; i += 4) {
      if (output.data[i + 3] !== 0) continue
      transparent++
      if (output.data[i] || output.data[i + 1] || output.data[i + 2]) tinted++
    }
    expect(transparent).toBeGreaterThan(output.data.length / 4 / 10)
    expect(tinted).toBe(0)
  })

  it('reports the router on blue (a hard case for U²-Netp: the blue front melts into the backdrop)', async () => {
    const { input, truth } = await routerOn('#0000ff')
    const output = await decodePng((await removeBackground(input)).bytes)
    const iou = alphaIoU(output.data, truth)
    console.info(`router on blue: IoU ${iou.toFixed(3)}`)
    expect(iou).toBeGreaterThan(0.3)
  })

  it('returns a lossless RGBA PNG at the original size, colours untouched where opaque', async () => {
    const input = await loadFixture('product-gameboy-white-bg.jpg')
    const result = await removeBackground(input)
    expect(result.contentType).toBe('image/png')
    expect([result.width, result.height]).toEqual([input.width, input.height])
    const output = await decodePng(result.bytes)
    expect(output.format).toBe('png')
    expect(output.channels).toBe(4)
    expect([output.width, output.height]).toEqual([989, 1200])
    // The corners are backdrop: fully transparent. The middle of the console is opaque and unchanged.
    expect(output.data[3]).toBe(0)
    const centre = ((600 * 989 + 494) * 4) as number
    expect(output.data[centre + 3]).toBe(255)
    expect(output.data.subarray(centre, centre + 3)).toEqual(input.data.subarray(centre, centre + 3))
  })

  it('leaves no hole in the Game Boy', async () => {
    const input = await loadFixture('product-gameboy-white-bg.jpg')
    const output = await decodePng((await removeBackground(input)).bytes)
    expect(enclosedTransparentPixels(output)).toBe(0)
  })

  it('flattens the cutout onto a background colour when asked', async () => {
    const input = await loadFixture('product-gameboy-white-bg.jpg')
    const output = await decodePng((await removeBackground(input, { background: '#f472b6' })).bytes)
    expect(output.channels).toBe(3)
    expect([...output.data.subarray(0, 4)]).toEqual([0xf4, 0x72, 0xb6, 255])
    const black = await decodePng((await removeBackground(input, { background: 'black' })).bytes)
    expect([...black.data.subarray(0, 3)]).toEqual([0, 0, 0])
  })

  it('keeps the cutout contract at every refinement level: same size, opaque pixels untouched, edges changed only near the outline', async () => {
    const { input } = await routerOn('#ffffff')
    const classic = await decodePng((await removeBackground(input, { refinement: 'classic' })).bytes)
    for (const refinement of ['model', 'guided', 'edges', 'sampled'] as const) {
      const output = await decodePng((await removeBackground(input, { refinement })).bytes)
      expect([output.width, output.height, output.channels]).toEqual([input.width, input.height, 4])
      let opaqueChanged = 0
      let clearTinted = 0
      for (let i = 0; i < output.data.length; i += 4) {
        const alpha = output.data[i + 3]
        if (alpha === 255 && (output.data[i] !== input.data[i] || output.data[i + 1] !== input.data[i + 1] || output.data[i + 2] !== input.data[i + 2])) opaqueChanged++
        if (alpha === 0 && (output.data[i] || output.data[i + 1] || output.data[i + 2])) clearTinted++
      }
      expect(opaqueChanged).toBe(0)
      expect(clearTinted).toBe(0)
      // The refinement works on the edge: deep inside and far outside the classic matte, alpha agrees.
      expect(output.data[(101 * input.width + 110) * 4 + 3]).toBe(classic.data[(101 * input.width + 110) * 4 + 3])
      // (The model's matte alone is not cleaned: its corner may keep a faint value.)
      if (refinement !== 'model') expect(output.data[3]).toBe(0)
    }
    // With foreground colours, some partly transparent pixels lose the white backdrop's tint.
    for (const refinement of ['edges', 'sampled'] as const) {
      const edges = await decodePng((await removeBackground(input, { refinement })).bytes)
      let recoloured = 0
      for (let i = 0; i < edges.data.length; i += 4) {
        const alpha = edges.data[i + 3]
        if (alpha > 0 && alpha < 255 && edges.data[i] !== input.data[i]) recoloured++
      }
      expect(recoloured).toBeGreaterThan(0)
    }
  })

  it('flattens an edge-refined cutout onto a colour too', async () => {
    const { input } = await routerOn('#ffffff')
    const output = await decodePng((await removeBackground(input, { background: '#000000', refinement: 'edges' })).bytes)
    expect([output.width, output.height, output.channels]).toEqual([input.width, input.height, 3])
    expect([...output.data.subarray(0, 3)]).toEqual([0, 0, 0])
  })

  it('refuses a background that is not a colour before anything runs (the runner reads the option)', async () => {
    await expect(backgroundRemoverRunner.parseOptions({ background: 'url(evil)' })).rejects.toMatchObject({
      status: 400,
      message: 'background must be a colour as #rgb or #rrggbb, or one of white, black.',
    })
    expect(await backgroundRemoverRunner.parseOptions({ background: ' #ABC ' })).toEqual({ background: '#abc' })
    expect(await backgroundRemoverRunner.parseOptions({ background: 'custom', background_custom: '#f472b6' })).toEqual({ background: '#f472b6' })
    expect(await backgroundRemoverRunner.parseOptions({ background: 'transparent' })).toEqual({})
  })
})

describe('refineMatte', () => {
  // A 60×60 white canvas with a grey ring; the model "missed" the ring's middle.
  function ringScene(holeColour: number): { soft: Buffer; rgba: Buffer } {
    const size = 60
    const soft = Buffer.alloc(size * size)
    const rgba = Buffer.alloc(size * size * 4, 255)
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const p = y * size + x
        const ring = x >= 10 && x < 50 && y >= 10 && y < 50
        const hole = x >= 20 && x < 40 && y >= 20 && y < 40
        soft[p] = ring && !hole ? 240 : hole ? 60 : 0
        const grey = hole ? holeColour : ring ? 128 : 255
        rgba.fill(grey, p * 4, p * 4 + 3)
      }
    }
    // A speck the model also marked: far away and tiny.
    soft[2 * size + 2] = 250
    return { soft, rgba }
  }
  const options = { minComponentShare: 0.1, edgeSigma: 0.8, backdropDistance: 24 }

  it('fills a hole that shows the subject, drops specks, and makes the inside opaque', async () => {
    const { soft, rgba } = ringScene(128)
    const alpha = await refineMatte(soft, rgba, 60, 60, options)
    expect(alpha[30 * 60 + 30]).toBe(255)
    expect(alpha[2 * 60 + 2]).toBe(0)
    expect(alpha[15 * 60 + 15]).toBe(255)
  })

  it('keeps a hole that shows the uniform backdrop see-through', async () => {
    const { soft, rgba } = ringScene(255)
    const alpha = await refineMatte(soft, rgba, 60, 60, options)
    expect(alpha[30 * 60 + 30]).toBeLessThan(128)
  })
})

describe('removeBackground with ISNet installed', () => {
  // A stand-in with ISNet's signature ([1,3,1024,1024] → [1,1,1024,1024]) whose "matte" is the
  // picture's brightness: a bright card on black must come out opaque, the black around it clear.
  const isnet = modelEntry('isnet-general-use')
  const folder = useModelsFolder({ link: ['u2netp'], standIns: () => ({ 'isnet-general-use': channelMeanOnnxModel(1024) }) })

  it('passes the installer check (positional names, fixed shapes) and is preferred over U²-Netp', async () => {
    const check = await checkModelFile(isnet, path.join(folder, isnet.file), { allowUnpinned: true })
    expect(check.problems).toEqual([])
    expect(activeSegmenter().id).toBe('isnet-general-use')
  })

  it('uses its matte at the original size', async () => {
    const [width, height] = [300, 200]
    const data = Buffer.alloc(width * height * 4)
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4
        const card = x >= 100 && x < 200 && y >= 50 && y < 150
        data.fill(card ? 240 : 0, i, i + 3)
        data[i + 3] = 255
      }
    }
    const output = await decodePng((await removeBackground({ data, width, height })).bytes)
    expect([output.width, output.height, output.channels]).toEqual([300, 200, 4])
    expect(output.data[(100 * width + 150) * 4 + 3]).toBe(255)
    expect(output.data[(10 * width + 10) * 4 + 3]).toBe(0)
    expect(output.data[(100 * width + 20) * 4 + 3]).toBe(0)
  })
})
