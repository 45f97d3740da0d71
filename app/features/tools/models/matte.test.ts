import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { blurInBands, labelRegions, refineMatte, sampleEdges } from './matte.server'

/** The plain definition: flood fill from each unlabelled pixel, in raster order. */
function floodFill(binary: Uint8Array, target: 0 | 1, width: number, height: number, eight: boolean) {
  const labels = new Int32Array(width * height)
  const areas = [0]
  const touches = [0]
  const steps = eight ? [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]] : [[0, -1], [-1, 0], [1, 0], [0, 1]]
  let count = 0
  for (let p = 0; p < labels.length; p++) {
    if (binary[p] !== target || labels[p]) continue
    const label = ++count
    areas.push(0)
    touches.push(0)
    const stack = [p]
    labels[p] = label
    while (stack.length) {
      const q = stack.pop()!
      const x = q % width
      const y = (q - x) / width
      areas[label]++
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) touches[label] = 1
      for (const [dx, dy] of steps) {
        const nx = x + dx!
        const ny = y + dy!
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue
        const n = ny * width + nx
        if (binary[n] === target && !labels[n]) {
          labels[n] = label
          stack.push(n)
        }
      }
    }
  }
  return { labels, count, areas, touches }
}

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
}

describe('labelRegions', () => {
  it('finds the same regions, numbered in the same order, as a flood fill (random masks, both connectivities)', () => {
    for (let trial = 0; trial < 40; trial++) {
      const next = random(trial + 1)
      const width = 1 + Math.floor(next() * 60)
      const height = 1 + Math.floor(next() * 60)
      const density = next()
      const binary = new Uint8Array(width * height).map(() => (next() < density ? 1 : 0))
      for (const target of [0, 1] as const) {
        for (const eight of [false, true]) {
          const expected = floodFill(binary, target, width, height, eight)
          const got = labelRegions(binary, target, width, height, eight)
          expect(got.count).toBe(expected.count)
          const labels = new Int32Array(width * height)
          for (let r = 0; r < got.runs.labels.length; r++) {
            labels.fill(got.runs.labels[r]!, got.runs.offsets[r]!, got.runs.offsets[r]! + got.runs.lengths[r]!)
          }
          expect(Array.from(labels)).toEqual(Array.from(expected.labels))
          expect(Array.from(got.areas)).toEqual(expected.areas)
          expect(Array.from(got.touchesBorder)).toEqual(expected.touches)
          // The same image as a mask (set pixels 255) gives the same regions.
          expect(labelRegions(binary.map((v) => v * 255), target, width, height, eight, 255)).toEqual(got)
        }
      }
    }
  })

  it('agrees with a flood fill on masks of large blocks (runs that span whole 32-bit words, odd widths)', () => {
    for (let trial = 0; trial < 30; trial++) {
      const next = random(trial + 100)
      const width = 5 + Math.floor(next() * 90)
      const height = 5 + Math.floor(next() * 40)
      const binary = new Uint8Array(width * height)
      for (let block = 0; block < 6; block++) {
        const x0 = Math.floor(next() * width)
        const y0 = Math.floor(next() * height)
        const x1 = Math.min(width, x0 + Math.floor(next() * width))
        const y1 = Math.min(height, y0 + Math.floor(next() * height))
        const value = block % 3 === 2 ? 0 : 1
        for (let y = y0; y < y1; y++) binary.fill(value, y * width + x0, y * width + x1)
      }
      for (const target of [0, 1] as const) {
        const expected = floodFill(binary, target, width, height, target === 1)
        const got = labelRegions(binary, target, width, height, target === 1)
        const labels = new Int32Array(width * height)
        for (let r = 0; r < got.runs.labels.length; r++) labels.fill(got.runs.labels[r]!, got.runs.offsets[r]!, got.runs.offsets[r]! + got.runs.lengths[r]!)
        expect(Array.from(labels)).toEqual(Array.from(expected.labels))
      }
    }
  })

  it('joins diagonal neighbours only with eight-connectivity', () => {
    const diagonal = new Uint8Array([1, 0, 0, 1])
    expect(labelRegions(diagonal, 1, 2, 2, true).count).toBe(1)
    expect(labelRegions(diagonal, 1, 2, 2, false).count).toBe(2)
  })
})

describe('refineMatte edge band', () => {
  it('equals the per-pixel rule (max with the blurred mask inside, min outside) at sigmas where an all-255 window blurs under 255', async () => {
    for (const edgeSigma of [0.6, 1.7, 1.86, 4]) {
      const next = random(Math.round(edgeSigma * 100))
      const width = 203
      const height = 157
      // One blob without holes or specks, so the thresholded matte is the final mask: mostly 255
      // inside with some lower values, a ramp at the outline, mostly 0 outside with some low values.
      const soft = Buffer.alloc(width * height)
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const d = Math.hypot(x - 100, y - 80) - 50
          const ramp = Math.max(0, Math.min(255, Math.round(128 - d * 20)))
          const noise = next()
          soft[y * width + x] = ramp === 255 && noise < 0.2 ? 130 + Math.floor(noise * 600) : ramp === 0 && noise < 0.2 ? Math.floor(noise * 600) : ramp
        }
      }
      const rgba = Buffer.alloc(width * height * 4, 200)
      const binary = Uint8Array.from(soft, (v) => (v >= 128 ? 1 : 0))
      const mask = Buffer.from(binary.map((v) => v * 255))
      const band = await sharp(mask, { raw: { width, height, channels: 1 } }).blur(Math.max(0.3, edgeSigma)).toColourspace('b-w').raw().toBuffer()
      const expected = Buffer.from(soft.map((v, p) => (binary[p] ? Math.max(v, band[p]!) : Math.min(v, band[p]!))))
      const got = await refineMatte(Buffer.from(soft), rgba, width, height, { minComponentShare: 0.1, edgeSigma, backdropDistance: 24 })
      expect(got.equals(expected), `sigma ${edgeSigma}`).toBe(true)
    }
  })
})

describe('blurInBands', () => {
  it('equals one blur of the whole image, whatever the number of bands (edges across band boundaries, noise)', async () => {
    const width = 157
    const height = 613
    const next = random(42)
    // Horizontal stripes of varying height (edges that cross every band boundary), with noise.
    const image = Buffer.alloc(width * height)
    for (let y = 0; y < height; y++) {
      const on = Math.floor(y / 7) % 3 === 0 || Math.floor(y / 13) % 5 === 1
      for (let x = 0; x < width; x++) image[y * width + x] = next() < 0.05 ? Math.floor(next() * 256) : on ? 255 : 0
    }
    for (const sigma of [0.6, 1.86, 4]) {
      const whole = await sharp(image, { raw: { width, height, channels: 1 } }).blur(sigma).toColourspace('b-w').raw().toBuffer()
      for (const bands of [1, 2, 3, 7]) {
        const assembled = Buffer.alloc(width * height, 7)
        let rows = 0
        await blurInBands(
          image,
          width,
          height,
          sigma,
          (band) => {
            expect((band.top * width) % 4, 'bands start on a word').toBe(0)
            expect(band.offset % 4, 'offsets are on a word').toBe(0)
            band.data.copy(assembled, band.top * width, band.offset, band.offset + band.rows * width)
            rows += band.rows
          },
          bands,
        )
        expect(rows).toBe(height)
        expect(assembled.equals(whole), `sigma ${sigma}, ${bands} bands`).toBe(true)
      }
    }
  })
})

describe('sampleEdges', () => {
  // The image threads start on first use: slow on a loaded machine.
  it('answers the same in the image threads as on the main thread (alpha and colours), and changes the edge only', { timeout: 60_000 }, async () => {
    // A noisy photo with a soft disc; the matte a blurred, shifted disc (the model's, off by a few px).
    const width = 300
    const height = 200
    const rgba = Buffer.alloc(width * height * 4)
    const matte = Buffer.alloc(width * height)
    let seed = 7
    const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 21) - 10
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const p = y * width + x
        const a = Math.min(1, Math.max(0, 60 - Math.hypot(x - 150, y - 100)) / 3)
        rgba.set([Math.round(220 * a + 40 * (1 - a)) + noise() + 10, Math.round(50 * a + 120 * (1 - a)) + 10, 60 + noise() + 10, 255], p * 4)
        matte[p] = Math.round(255 * Math.min(1, Math.max(0, 57 - Math.hypot(x - 153, y - 100)) / 4))
      }
    }
    const sampling = { band: 4, contrast: 40, minAlpha: 0.3 }
    const mainAlpha = Buffer.from(matte)
    const mainColours = Buffer.from(rgba)
    await sampleEdges(mainAlpha, rgba, width, height, sampling, mainColours, { inThreads: false })
    const threadAlpha = Buffer.from(matte)
    const threadColours = Buffer.from(rgba)
    await sampleEdges(threadAlpha, rgba, width, height, sampling, threadColours, { inThreads: true })
    expect(threadAlpha.equals(mainAlpha)).toBe(true)
    expect(threadColours.equals(mainColours)).toBe(true)
    // Something changed near the outline, nothing far from it.
    expect(mainAlpha.equals(matte)).toBe(false)
    expect(mainAlpha[100 * width + 150]).toBe(matte[100 * width + 150])
    expect(mainAlpha[10 * width + 10]).toBe(matte[10 * width + 10])
  })
})

describe('refineMatte keeps every confident part (decision 159)', () => {
  const width = 200
  const height = 100
  const options = { minComponentShare: 0.1, edgeSigma: 1, backdropDistance: 24 }
  /** A matte (or a mask) holding `value` in each rectangle (x, y, w, h). */
  const drawn = (rects: [number, number, number, number, number][]) => {
    const out = Buffer.alloc(width * height)
    for (const [x0, y0, w, h, value] of rects) for (let y = y0; y < y0 + h; y++) out.fill(value, y * width + x0, y * width + x0 + w)
    return out
  }
  /** A photo in one grey where `dark` is set, another elsewhere. */
  const photo = (dark: Buffer, ink: number, paper: number) => {
    const rgba = Buffer.alloc(width * height * 4, 255)
    for (let p = 0; p < width * height; p++) rgba.fill(dark[p] ? ink : paper, p * 4, p * 4 + 3)
    return rgba
  }
  const at = (matte: Buffer, x: number, y: number) => matte[y * width + x]

  it('drops a speck under 0.1 % of the image, and keeps a part over it however small beside the largest', async () => {
    // 20,000 px: a 60×60 subject, a 10×10 part (100 px: 2.8 % of the subject, under the speck share; 0.5 % of the image) and a 3×3 speck.
    const matte = drawn([
      [10, 20, 60, 60, 255],
      [120, 40, 10, 10, 255],
      [170, 80, 3, 3, 255],
    ])
    const flat = Buffer.alloc(width * height * 4, 128)
    const refined = await refineMatte(matte, flat, width, height, options)
    expect(at(refined, 40, 50)).toBe(255)
    expect(at(refined, 125, 45)).toBe(255)
    expect(at(refined, 171, 81)).toBe(0)
  })

  it('takes a part the model holds only at 0.3-0.5 into the mask, and leaves what it holds under 0.3', async () => {
    const matte = drawn([
      [10, 20, 60, 60, 255],
      [100, 10, 10, 40, 100],
      [150, 10, 10, 40, 70],
    ])
    const refined = await refineMatte(matte, Buffer.alloc(width * height * 4, 128), width, height, options)
    expect(at(refined, 105, 30)).toBe(255)
    expect(at(refined, 155, 30)).toBe(0)
  })

  it('over a uniform backdrop, grows the mask into what plainly is not the backdrop and touches the subject', async () => {
    // The photo: a dark square, an antenna 3 px wide standing on it, and a dark bar apart from both, on white.
    const dark = drawn([
      [10, 40, 60, 60, 1],
      [40, 5, 3, 35, 1],
      [120, 20, 40, 10, 1],
    ])
    const matte = drawn([[10, 40, 60, 60, 255]])
    const refined = await refineMatte(Buffer.from(matte), photo(dark, 40, 255), width, height, options)
    expect(at(refined, 41, 10)).toBe(255)
    expect(at(refined, 140, 25)).toBe(0)
    // Over a backdrop of mixed colours (every other column another grey) nothing grows.
    const mixed = photo(dark, 40, 255)
    for (let p = 0; p < width * height; p++) if (!dark[p] && p % 2) mixed.fill(150, p * 4, p * 4 + 3)
    const unchanged = await refineMatte(Buffer.from(matte), mixed, width, height, options)
    expect(at(unchanged, 41, 10)).toBe(0)
  })
})
