import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { bicubicApplies, bicubicUpscaler } from './bicubic-upscale.mjs'
import type { RawImage } from './pixels.server'

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
}

/** Noise (every weight and rounding shows) or a smooth field (like a matte). */
function sourceImage(width: number, height: number, kind: 'noise' | 'smooth', seed: number): RawImage {
  const next = random(seed)
  const data = Buffer.alloc(width * height)
  for (let i = 0; i < data.length; i++) {
    data[i] = kind === 'noise' ? Math.floor(next() * 256) : Math.round(127.5 + 127.5 * Math.sin(i * 0.37) * Math.cos(i * 0.011))
  }
  return { data, width, height, channels: 1 }
}

const sharpCubic = (source: RawImage, width: number, height: number) =>
  sharp(source.data, { raw: { width: source.width, height: source.height, channels: 1 } })
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .toColourspace('b-w')
    .raw()
    .toBuffer()

function upscaleWhole(source: RawImage, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height)
  bicubicUpscaler(source, width, height).region(0, 0, width, height, out, 0, width)
  return out
}

function differing(a: Buffer, b: Buffer): number {
  let count = 0
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) count++
  return count
}

describe('bicubicUpscaler', () => {
  // Sizes like the remover's (a 320² or 1024² matte to a photo), odd ratios, one axis unscaled, tiny images.
  const cases: Array<[number, number, number, number]> = [
    [320, 320, 3145, 3816],
    [40, 40, 700, 530],
    [7, 5, 50, 13],
    [320, 320, 641, 320],
    [64, 64, 64, 300],
    [10, 10, 20, 20],
    [3, 3, 1000, 7],
  ]
  for (const [inWidth, inHeight, width, height] of cases) {
    for (const kind of ['noise', 'smooth'] as const) {
      it(`equals sharp's cubic resize byte for byte: ${inWidth}×${inHeight} → ${width}×${height}, ${kind}`, { timeout: 60_000 }, async () => {
        const source = sourceImage(inWidth, inHeight, kind, inWidth * 31 + width)
        expect(differing(upscaleWhole(source, width, height), await sharpCubic(source, width, height))).toBe(0)
      })
    }
  }

  it('computes any region the same as the whole, into any place of the output', () => {
    const source = sourceImage(40, 30, 'noise', 5)
    const whole = upscaleWhole(source, 413, 287)
    const upscaler = bicubicUpscaler(source, 413, 287)
    const next = random(9)
    for (let k = 0; k < 50; k++) {
      const left = Math.floor(next() * 400)
      const top = Math.floor(next() * 280)
      const cols = 1 + Math.floor(next() * (413 - left - 1))
      const rows = 1 + Math.floor(next() * (287 - top - 1))
      const out = Buffer.alloc(cols * rows + 3)
      upscaler.region(left, top, cols, rows, out, 3, cols)
      for (let y = 0; y < rows; y++) {
        expect(out.subarray(3 + y * cols, 3 + (y + 1) * cols).equals(whole.subarray((top + y) * 413 + left, (top + y) * 413 + left + cols))).toBe(true)
      }
    }
  })

  it('names every source pixel a region reads: changing any other leaves the region as it was', () => {
    const source = sourceImage(50, 40, 'noise', 11)
    const width = 731
    const height = 402
    const next = random(3)
    for (let k = 0; k < 20; k++) {
      const left = Math.floor(next() * 700)
      const top = Math.floor(next() * 380)
      const cols = 16
      const rows = 16
      const upscaler = bicubicUpscaler(source, width, height)
      const columns = upscaler.sourceColumns(left, left + cols)
      const sourceRows = upscaler.sourceRows(top, top + rows)
      const before = Buffer.alloc(cols * rows)
      upscaler.region(left, top, cols, rows, before, 0, cols)
      // Every pixel outside the span turned to its opposite.
      const changed = Buffer.from(source.data)
      for (let y = 0; y < source.height; y++) {
        for (let x = 0; x < source.width; x++) {
          const inside = x >= columns.first && x <= columns.last && y >= sourceRows.first && y <= sourceRows.last
          if (!inside) changed[y * source.width + x] = 255 - changed[y * source.width + x]
        }
      }
      const after = Buffer.alloc(cols * rows)
      bicubicUpscaler({ ...source, data: changed }, width, height).region(left, top, cols, rows, after, 0, cols)
      expect(after.equals(before)).toBe(true)
    }
  })

  it('takes enlargements only (a reduction is libvips’ own kernel)', () => {
    const source = sourceImage(40, 40, 'smooth', 1)
    expect(bicubicApplies(source, 80, 40)).toBe(true)
    expect(bicubicApplies(source, 80, 39)).toBe(false)
    expect(() => bicubicUpscaler(source, 30, 60)).toThrow()
  })
})
