// The brush mask scaled to the result only around its strokes, one box for each band of stroked rows
// (decision 169): strokes far apart do not scale the picture between them, and no pixel is blended twice.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { blendMask, MASK_NEUTRAL } from './alpha-rules'
import { maskPixels, strokeBands } from './corrections.server'

function maskWith(width: number, height: number, strokes: Array<{ x: number; y: number; width: number; height: number; value: number }>) {
  const data = new Uint8Array(width * height).fill(MASK_NEUTRAL)
  for (const s of strokes) for (let y = s.y; y < s.y + s.height; y++) data.fill(s.value, y * width + s.x, y * width + s.x + s.width)
  return data
}

describe('strokeBands', () => {
  it('finds one box for each band of stroked rows, joins bands close together, and none for a plain mask', () => {
    expect(strokeBands(maskWith(100, 100, []), 100, 100)).toEqual([])
    const far = maskWith(100, 100, [
      { x: 10, y: 5, width: 20, height: 4, value: 255 },
      { x: 50, y: 60, width: 30, height: 5, value: 0 },
    ])
    expect(strokeBands(far, 100, 100)).toEqual([
      { x0: 10, y0: 5, x1: 30, y1: 9 },
      { x0: 50, y0: 60, x1: 80, y1: 65 },
    ])
    const near = maskWith(100, 100, [
      { x: 10, y: 5, width: 20, height: 4, value: 255 },
      { x: 50, y: 15, width: 30, height: 5, value: 0 },
    ])
    expect(strokeBands(near, 100, 100)).toEqual([{ x0: 10, y0: 5, x1: 80, y1: 20 }])
  })
})

describe('maskPixels', () => {
  it('scales a preview mask to the result in boxes that never overlap, restoring and removing under the strokes', async () => {
    const small = maskWith(100, 75, [
      { x: 10, y: 5, width: 20, height: 4, value: 255 },
      { x: 50, y: 50, width: 30, height: 5, value: 0 },
    ])
    const png = await sharp(small, { raw: { width: 100, height: 75, channels: 1 } }).png().toBuffer()
    const layers = await maskPixels(png, 400, 300)
    expect(layers).toHaveLength(2)
    const [a, b] = layers.map((layer) => layer.box)
    expect(a!.y + a!.height).toBeLessThan(b!.y)
    const alpha = new Uint8Array(400 * 300).fill(100)
    for (const layer of layers) blendMask(alpha, 400, layer)
    expect(alpha[28 * 400 + 80]).toBe(255) // under the white stroke (preview 20, 7)
    expect(alpha[210 * 400 + 260]).toBe(0) // under the black one (preview 65, 52.5)
    expect(alpha[120 * 400 + 200]).toBe(100) // between them: left alone
    expect(await maskPixels(await sharp(maskWith(100, 75, []), { raw: { width: 100, height: 75, channels: 1 } }).png().toBuffer(), 400, 300)).toEqual([])
  })

  it('reads the editor\'s opaque grey RGBA, a grey PNG, a grey with transparency and a colour mask alike', async () => {
    const small = maskWith(100, 75, [
      { x: 10, y: 5, width: 20, height: 4, value: 255 },
      { x: 50, y: 50, width: 30, height: 5, value: 0 },
      { x: 40, y: 30, width: 10, height: 3, value: 190 },
    ])
    const raw = (channels: 1 | 2 | 3 | 4, pixels: Uint8Array) => sharp(pixels, { raw: { width: 100, height: 75, channels } }).png().toBuffer()
    const grey = await maskPixels(await raw(1, small), 400, 300)
    // The canvas's PNG: every pixel R = G = B, alpha 255.
    const rgba = new Uint8Array(small.length * 4)
    small.forEach((v, i) => rgba.set([v, v, v, 255], i * 4))
    expect(await maskPixels(await raw(4, rgba), 400, 300)).toEqual(grey)
    // Transparent where the mask is 128: flattened over 128, the same strokes.
    const seeThrough = new Uint8Array(small.length * 2)
    small.forEach((v, i) => seeThrough.set(v === MASK_NEUTRAL ? [0, 0] : [v, 255], i * 2))
    expect(await maskPixels(await raw(2, seeThrough), 400, 300)).toEqual(grey)
    // A colour: converted to grey, not read as its red channel.
    const colour = new Uint8Array(rgba)
    colour.set([255, 0, 0, 255], (31 * 100 + 45) * 4)
    const layers = await maskPixels(await raw(4, colour), 400, 300)
    const band = layers.find((layer) => layer.box.y <= 31 * 4 && layer.box.y + layer.box.height > 31 * 4)!
    const at = (31 * 4 + 1 - band.box.y) * band.box.width + (45 * 4 + 1 - band.box.x)
    expect(band.data[at]).toBeLessThan(190)
  })
})
