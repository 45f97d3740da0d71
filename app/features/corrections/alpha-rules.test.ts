import { describe, expect, it } from 'vitest'
import { applyPartDecisions, blendMask, findParts, growMatte, MASK_NEUTRAL } from './alpha-rules'

describe('blendMask', () => {
  it('leaves the matte under 128, restores fully under white, removes fully under black, halfway in between', () => {
    const alpha = Uint8Array.from([0, 100, 255, 0, 200, 100, 200])
    const data = Uint8Array.from([MASK_NEUTRAL, MASK_NEUTRAL, MASK_NEUTRAL, 255, 0, 64, 191])
    blendMask(alpha, 7, { data, box: { x: 0, y: 0, width: 7, height: 1 } })
    // 191: (191 − 128)/127 ≈ 0.496 of the way from 200 to 255; 64: 100 × 64/128.
    expect([...alpha]).toEqual([0, 100, 255, 255, 0, 50, Math.round(200 + (55 * 63) / 127)])
  })

  it('reads only its box, at its place in the matte', () => {
    const alpha = new Uint8Array(4 * 3).fill(100)
    blendMask(alpha, 4, { data: Uint8Array.from([255, 0]), box: { x: 2, y: 1, width: 1, height: 2 } })
    expect([...alpha]).toEqual([100, 100, 100, 100, 100, 100, 255, 100, 100, 100, 0, 100])
  })

  it('refuses a mask that does not fit the matte', () => {
    expect(() => blendMask(new Uint8Array(4), 2, { data: new Uint8Array(3), box: { x: 0, y: 0, width: 2, height: 2 } })).toThrow(RangeError)
    expect(() => blendMask(new Uint8Array(4), 2, { data: new Uint8Array(2), box: { x: 1, y: 0, width: 2, height: 1 } })).toThrow(RangeError)
  })
})

/** A width × height matte with the given pixels set. */
function matte(width: number, height: number, on: Array<[number, number, number]>): Uint8Array {
  const data = new Uint8Array(width * height)
  for (const [x, y, v] of on) data[y * width + x] = v
  return data
}

describe('growMatte', () => {
  it('grows a pixel into a square of radius r, and shrinking takes it back', () => {
    const alpha = matte(9, 9, [[4, 4, 200]])
    growMatte(alpha, 9, 9, 2)
    for (let y = 0; y < 9; y++) for (let x = 0; x < 9; x++) expect(alpha[y * 9 + x]).toBe(Math.abs(x - 4) <= 2 && Math.abs(y - 4) <= 2 ? 200 : 0)
    growMatte(alpha, 9, 9, -2)
    expect([...alpha]).toEqual([...matte(9, 9, [[4, 4, 200]])])
  })

  it('matches a direct min/max over the window on a random matte, at the picture edge too', () => {
    const width = 23
    const height = 17
    const source = Uint8Array.from({ length: width * height }, (_, i) => (i * 7919) % 256)
    for (const px of [1, 3, -1, -4]) {
      const alpha = Uint8Array.from(source)
      growMatte(alpha, width, height, px)
      const r = Math.abs(px)
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          let want = px > 0 ? 0 : 255
          for (let dy = -r; dy <= r; dy++) {
            for (let dx = -r; dx <= r; dx++) {
              const xx = x + dx
              const yy = y + dy
              if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue
              const v = source[yy * width + xx]
              want = px > 0 ? Math.max(want, v) : Math.min(want, v)
            }
          }
          expect(alpha[y * width + x]).toBe(want)
        }
      }
    }
  })
})

describe('findParts', () => {
  // 40 × 40: a big part (20 × 20 at 255) the refinement keeps, a small one (5 × 5 at 200) it dropped,
  // a faint one (mean under 0.3) and a speck (under 0.1 % of the picture) that are not parts.
  const width = 40
  const height = 40
  function scene() {
    const model = new Uint8Array(width * height)
    const refined = new Uint8Array(width * height)
    const fill = (x0: number, y0: number, w: number, h: number, value: number, also?: Uint8Array) => {
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) {
        model[y * width + x] = value
        if (also) also[y * width + x] = 255
      }
    }
    fill(2, 2, 20, 20, 255, refined)
    fill(30, 30, 5, 5, 200)
    fill(30, 2, 6, 6, 40)
    model[39 * width + 0] = 255
    return { model, refined }
  }

  it('lists the regions with enough alpha and area, largest first, and whether the refinement kept them', () => {
    const { model, refined } = scene()
    const parts = findParts(model, refined, width, height)
    expect(parts.map(({ runs: _runs, ...part }) => part)).toEqual([
      { id: '1', box: { x: 2, y: 2, width: 20, height: 20 }, area: 400, meanAlpha: 1, keptByRefinement: true },
      { id: '2', box: { x: 30, y: 30, width: 5, height: 5 }, area: 25, meanAlpha: 0.784, keptByRefinement: false },
    ])
  })

  it('joins a U shape into one part (the arms meet only below)', () => {
    const model = matte(10, 10, [])
    for (let y = 0; y < 10; y++) {
      model[y * 10 + 1] = 255
      model[y * 10 + 8] = 255
    }
    for (let x = 1; x <= 8; x++) model[9 * 10 + x] = 255
    const parts = findParts(model, model, 10, 10)
    expect(parts).toHaveLength(1)
    expect(parts[0]!.area).toBe(10 + 10 + 6)
  })

  it('brings a dropped part back with its model alpha, and zeroes a removed one', () => {
    const { model, refined } = scene()
    const parts = findParts(model, refined, width, height)
    const alpha = Uint8Array.from(refined)
    applyPartDecisions(alpha, model, parts, { '1': 'remove', '2': 'keep' })
    expect(alpha[5 * width + 5]).toBe(0)
    expect(alpha[32 * width + 32]).toBe(200)
    expect(alpha[3 * width + 32]).toBe(0) // not a part: untouched
  })
})
