import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { defocusedParts, partSharpness } from './matte-focus.server'
import { labelRegions, refineMatte } from './matte.server'

const width = 240
const height = 120
/** Two squares on a grey backdrop: the left one at x 20..80, the right one at x 140..200, y 30..90. */
const inLeft = (x: number, y: number) => x >= 20 && x < 80 && y >= 30 && y < 90
const inRight = (x: number, y: number) => x >= 140 && x < 200 && y >= 30 && y < 90

/** The photo: both squares dark on light grey; the right half blurred by a Gaussian of `sigma` px when given. */
async function photo(sigma: number | null): Promise<Buffer> {
  const rgba = Buffer.alloc(width * height * 4)
  for (let p = 0; p < width * height; p++) {
    const x = p % width
    const y = Math.floor(p / width)
    const v = inLeft(x, y) || inRight(x, y) ? 40 : 200
    rgba.set([v, v, v, 255], p * 4)
  }
  if (sigma === null) return rgba
  const right = await sharp(rgba, { raw: { width, height, channels: 4 } }).extract({ left: 120, top: 0, width: 120, height }).blur(sigma).raw().toBuffer()
  for (let y = 0; y < height; y++) right.copy(rgba, (y * width + 120) * 4, y * 120 * 4, (y + 1) * 120 * 4)
  return rgba
}

/** The model's matte: both squares, each a few px off the true edge, as an enlarged 320² matte is. */
function mask(): Uint8Array {
  return Uint8Array.from({ length: width * height }, (_, p) => {
    const x = p % width
    const y = Math.floor(p / width)
    return inLeft(x - 2, y + 1) || inRight(x + 2, y - 1) ? 255 : 0
  })
}

const rule = { reach: 4, minShare: 0.4 }

describe('partSharpness', () => {
  it('reads a sharp edge as most of its range in one step and a blurred one as a small share of it', async () => {
    const m = mask()
    const parts = labelRegions(m, 1, width, height, true, 255)
    const sharpness = partSharpness(m, await photo(4), width, height, parts, rule.reach)
    expect(parts.count).toBe(2)
    expect(sharpness[1]).toBeGreaterThan(0.6)
    expect(sharpness[2]).toBeLessThan(0.2)
  })

  it('has no measure for a part whose outline shows no contrast', async () => {
    const flat = Buffer.alloc(width * height * 4, 128)
    const m = mask()
    const parts = labelRegions(m, 1, width, height, true, 255)
    const sharpness = partSharpness(m, flat, width, height, parts, rule.reach)
    expect(Number.isNaN(sharpness[1])).toBe(true)
    expect(Number.isNaN(sharpness[2])).toBe(true)
  })
})

describe('defocusedParts', () => {
  it('drops the part out of focus beside a sharp one', async () => {
    const m = mask()
    const parts = labelRegions(m, 1, width, height, true, 255)
    expect([...defocusedParts(m, await photo(4), width, height, parts, rule)]).toEqual([2])
  })

  it('keeps parts equally in focus, and a part alone however soft', async () => {
    const m = mask()
    const parts = labelRegions(m, 1, width, height, true, 255)
    expect(defocusedParts(m, await photo(null), width, height, parts, rule).size).toBe(0)
    const alone = Uint8Array.from(m, (v, p) => (p % width < 120 ? 0 : v))
    const one = labelRegions(alone, 1, width, height, true, 255)
    expect(defocusedParts(alone, await photo(4), width, height, one, rule).size).toBe(0)
  })

  it('keeps a part whose sharpness cannot be measured', async () => {
    const m = mask()
    const parts = labelRegions(m, 1, width, height, true, 255)
    // The right square the colour of the backdrop: its outline has no contrast to read.
    const rgba = await photo(4)
    for (let p = 0; p < width * height; p++) if (p % width >= 120) rgba.set([200, 200, 200, 255], p * 4)
    expect(defocusedParts(m, rgba, width, height, parts, rule).size).toBe(0)
  })
})

describe('refineMatte with a focus rule', () => {
  const options = { minComponentShare: 0.1, edgeSigma: 1, backdropDistance: 24 }

  it('leaves the defocused part out (offered back on the correction page) and the sharp one whole', async () => {
    const rgba = await photo(4)
    const refined = await refineMatte(Buffer.from(mask()), rgba, width, height, { ...options, focus: rule })
    expect(refined[60 * width + 50]).toBe(255)
    expect(refined[60 * width + 170]).toBe(0)
    // Its weight is the rule's: 0.5 keeps it at half the model's alpha (under the mask's 0.5).
    const softened = await refineMatte(Buffer.from(mask()), rgba, width, height, { ...options, focus: { ...rule, weight: 0.5 } })
    expect(softened[60 * width + 170]).toBe(127)
    // Without the rule both stay whole.
    const kept = await refineMatte(Buffer.from(mask()), rgba, width, height, options)
    expect(kept[60 * width + 170]).toBe(255)
  })

  it('keeps whole a part out of focus that the model joins to the sharp one at 0.3', async () => {
    // A bridge held at 100 (0.39) from one square to the other, rows 58-61.
    const joined = Buffer.from(mask().map((v, p) => (v === 0 && p % width >= 80 && p % width < 140 && Math.floor(p / width) >= 58 && Math.floor(p / width) < 62 ? 100 : v)))
    const refined = await refineMatte(joined, await photo(4), width, height, { ...options, focus: rule })
    expect(refined[60 * width + 50]).toBe(255)
    expect(refined[60 * width + 170]).toBe(255)
  })

  it('leaves a small part kept beside the subject out of the comparison: it is no sharp reference', async () => {
    // A sharp 18×18 part (324 px: under a tenth of the blurred right square's 3,600, over 0.1 % of the
    // image) beside the blurred square: as the sharp reference it would make the square look out of focus.
    const small = Buffer.from(mask().map((v, p) => (p % width < 120 ? (p % width >= 30 && p % width < 48 && Math.floor(p / width) >= 40 && Math.floor(p / width) < 58 ? 255 : 0) : v)))
    // The photo's left half repainted: only the 18×18 square dark, sharp-edged.
    const rgba = await photo(4)
    for (let p = 0; p < width * height; p++) if (p % width < 120) rgba.fill(small[p] ? 40 : 200, p * 4, p * 4 + 3)
    const refined = await refineMatte(small, rgba, width, height, { ...options, focus: rule })
    expect(refined[60 * width + 170]).toBe(255)
    expect(refined[48 * width + 38]).toBe(255)
  })
})
