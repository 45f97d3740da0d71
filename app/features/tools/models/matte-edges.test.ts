import { describe, expect, it } from 'vitest'
import { EDGE_TILE, edgeRects, foregroundRect, fusionFields, guidedFilterRect, sampleEdgesRect } from './matte-edges.mjs'

const width = 160
const height = 64

/** An RGBA photo whose colour is `left` for x < edge and `right` from there. */
function photoWithEdge(edge: number, left: number[], right: number[]): Uint8Array {
  const rgba = new Uint8Array(width * height * 4)
  for (let p = 0; p < width * height; p++) {
    const colour = p % width < edge ? left : right
    rgba.set([...colour, 255], p * 4)
  }
  return rgba
}

/** A matte ramping from 255 to 0 over columns from..to. */
function ramp(from: number, to: number): Uint8Array {
  return Uint8Array.from({ length: width * height }, (_, p) => {
    const x = p % width
    return Math.round(255 * Math.min(1, Math.max(0, (to - x) / (to - from))))
  })
}

const whole = { x0: 0, y0: 0, x1: width, y1: height }

describe('edgeRects', () => {
  it('covers the tiles within reach of a tile where alpha varies, nothing else', () => {
    const alpha = new Uint8Array(width * height).fill(255)
    alpha.fill(0, 0, width) // row 0 differs: the first row of tiles is mixed
    const rects = edgeRects(alpha, width, height, 0)
    expect(rects).toEqual([{ x0: 0, y0: 0, x1: width, y1: EDGE_TILE }])
    expect(edgeRects(alpha, width, height, 1)).toEqual([
      { x0: 0, y0: 0, x1: width, y1: EDGE_TILE },
      { x0: 0, y0: EDGE_TILE, x1: width, y1: 2 * EDGE_TILE },
    ])
    expect(edgeRects(new Uint8Array(width * height), width, height, 40)).toEqual([])
  })
})

describe('guidedFilterRect', () => {
  it('leaves a matte without an edge as it is', () => {
    const alpha = new Uint8Array(width * height).fill(255)
    const out = new Uint8Array(width * height)
    guidedFilterRect(alpha, photoWithEdge(80, [200, 10, 10], [10, 10, 200]), width, height, whole, 6, 0.01, 1, out)
    expect(out.every((v) => v === 255)).toBe(true)
  })

  it('pulls a soft edge onto the photo edge, and the coarse-grid form follows the exact one', () => {
    // The model's matte ramps over columns 70..90 (a step of 12-13 levels a column); the photo's edge is sharp at 80.
    const alpha = ramp(70, 90)
    const photo = photoWithEdge(80, [230, 230, 230], [20, 20, 20])
    const exact = new Uint8Array(width * height)
    const coarse = new Uint8Array(width * height)
    guidedFilterRect(alpha, photo, width, height, whole, 8, 0.001, 1, exact)
    guidedFilterRect(alpha, photo, width, height, whole, 8, 0.001, 2, coarse)
    const row = 32 * width
    // Most of the ramp now falls between columns 79 and 80, where the photo's edge is.
    expect(alpha[row + 79] - alpha[row + 80]).toBeLessThan(15)
    expect(exact[row + 79] - exact[row + 80]).toBeGreaterThan(90)
    for (let x = 0; x < width; x++) expect(Math.abs(coarse[row + x] - exact[row + x])).toBeLessThanOrEqual(4)
  })
})

describe('foregroundRect (blur-fusion)', () => {
  it("gives partly transparent pixels their foreground's colour instead of the mix with the background", () => {
    const F = [200, 30, 30]
    const B = [20, 40, 220]
    const alpha = ramp(70, 90).map((v) => 255 - v) // 0 on the left, 255 on the right
    const rgba = new Uint8Array(width * height * 4)
    for (let p = 0; p < width * height; p++) {
      const a = alpha[p] / 255
      rgba.set([...F.map((f, c) => Math.round(f * a + B[c] * (1 - a))), 255], p * 4)
    }
    const out = new Uint8Array(rgba)
    const rects = edgeRects(alpha, width, height, 0)
    const fields = fusionFields(alpha, rgba, width, height, rects, 5, 3)
    for (const rect of rects) foregroundRect(alpha, rgba, width, height, rect, fields, 3, out)
    let before = 0
    let after = 0
    let partial = 0
    for (let p = 0; p < width * height; p++) {
      if (alpha[p] === 0 || alpha[p] === 255) {
        // Opaque and clear pixels keep their bytes.
        expect([...out.subarray(p * 4, p * 4 + 4)]).toEqual([...rgba.subarray(p * 4, p * 4 + 4)])
        continue
      }
      partial++
      for (let c = 0; c < 3; c++) {
        before += Math.abs(rgba[p * 4 + c] - F[c])
        after += Math.abs(out[p * 4 + c] - F[c])
      }
    }
    expect(partial).toBeGreaterThan(0)
    // The mix is off by tens of levels on average; the estimate by a fraction of that.
    expect(before / partial / 3).toBeGreaterThan(40)
    expect(after / partial / 3).toBeLessThan(before / partial / 3 / 4)
  })
})

describe('sampleEdgesRect', () => {
  // The truth: a red subject whose edge fades over columns 70..76 into a blue backdrop, composited
  // exactly; the matte handed over is a hard step at column 74 (the model's edge, a few px off).
  const F = [200, 40, 40]
  const B = [30, 60, 200]
  const truth = ramp(70, 76)
  const photo = new Uint8Array(width * height * 4)
  for (let p = 0; p < width * height; p++) {
    const a = truth[p] / 255
    photo.set([...F.map((f, c) => Math.round(f * a + B[c] * (1 - a))), 255], p * 4)
  }
  const step = Uint8Array.from({ length: width * height }, (_, p) => (p % width < 74 ? 255 : 0))
  const sampling = { band: 4, contrast: 40, minAlpha: 0.3 }

  it('recovers the true alpha and the foreground colour where the matte was wrong', () => {
    const out = Uint8Array.from(step)
    const colours = Uint8Array.from(photo)
    sampleEdgesRect(step, photo, width, height, whole, sampling, out, colours)
    for (let y = 0; y < height; y++) {
      for (let x = 66; x < 82; x++) {
        const p = y * width + x
        expect(Math.abs(out[p] - truth[p])).toBeLessThanOrEqual(1)
        if (out[p] > 0 && out[p] < 255) for (let c = 0; c < 3; c++) expect(Math.abs(colours[p * 4 + c] - F[c])).toBeLessThanOrEqual(3)
      }
    }
    // Far from the edge nothing changes.
    expect(out[10 * width + 20]).toBe(255)
    expect(out[10 * width + 140]).toBe(0)
    expect([...colours.subarray((10 * width + 20) * 4, (10 * width + 20) * 4 + 4)]).toEqual([...photo.subarray((10 * width + 20) * 4, (10 * width + 20) * 4 + 4)])
  })

  it('keeps the photo\'s colour where unmixing would move it away from the subject\'s (the backdrop sampled is not the one behind)', () => {
    // Past column 78 the backdrop turns magenta: the samples outward see it, but blue lies behind the
    // ramp. Alpha projects right (F and magenta differ only in blue); unmixing with magenta does not.
    const Y = [200, 40, 200]
    const wrongBackdrop = Uint8Array.from(photo)
    for (let p = 0; p < width * height; p++) if (p % width >= 78) wrongBackdrop.set([...Y, 255], p * 4)
    const out = Uint8Array.from(step)
    const colours = Uint8Array.from(wrongBackdrop)
    sampleEdgesRect(step, wrongBackdrop, width, height, whole, sampling, out, colours)
    const fromF = (rgba: Uint8Array, p: number) => Math.hypot(...F.map((f, c) => rgba[p * 4 + c] - f))
    let kept = 0
    for (let y = 0; y < height; y++) {
      for (let x = 66; x < 78; x++) {
        const p = y * width + x
        if (out[p] === 0 || out[p] === 255) continue
        expect(fromF(colours, p)).toBeLessThanOrEqual(fromF(wrongBackdrop, p) + 1e-9)
        if (Buffer.from(colours.subarray(p * 4, p * 4 + 3)).equals(Buffer.from(wrongBackdrop.subarray(p * 4, p * 4 + 3)))) kept++
      }
    }
    expect(kept).toBeGreaterThan(0)
  })

  it("keeps the matte's alpha where foreground and backdrop look alike", () => {
    const grey = photoWithEdge(74, [120, 120, 120], [121, 120, 120])
    const out = Uint8Array.from(step)
    sampleEdgesRect(step, grey, width, height, whole, sampling, out, undefined)
    // 1 level apart: trusted 1/1600 of the way; the matte's 255 and 0 stay.
    for (let x = 66; x < 82; x++) expect(out[10 * width + x]).toBe(step[10 * width + x])
  })

  it('with keepsMask, softens what the matte holds to 0.5 at the least and changes nothing else (decision 168)', () => {
    // The true edge lies 3 px left of the matte's: columns 71..73 are in the matte, and the photo shows the backdrop there.
    const early = ramp(64, 71)
    const shifted = new Uint8Array(width * height * 4)
    for (let p = 0; p < width * height; p++) {
      const a = early[p] / 255
      shifted.set([...F.map((f, c) => Math.round(f * a + B[c] * (1 - a))), 255], p * 4)
    }
    const free = Uint8Array.from(step)
    const coloursFree = Uint8Array.from(shifted)
    sampleEdgesRect(step, shifted, width, height, whole, sampling, free, coloursFree)
    const held = Uint8Array.from(step)
    const coloursHeld = Uint8Array.from(shifted)
    sampleEdgesRect(step, shifted, width, height, whole, { ...sampling, keepsMask: true }, held, coloursHeld)
    const colour = (rgba: Uint8Array, p: number) => [...rgba.subarray(p * 4, p * 4 + 3)]
    const fromF = (rgba: Uint8Array, p: number) => Math.hypot(...F.map((f, c) => rgba[p * 4 + c] - f))
    let floored = 0
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const p = y * width + x
        if (step[p] === 255 && free[p] < 128) {
          // Without the rule the step takes the pixel out of the cutout; with it the pixel stays, at 0.5,
          // its colour unmixed at the sampled alpha where that fits, else the photo's.
          expect(held[p]).toBe(128)
          expect(fromF(coloursHeld, p)).toBeLessThanOrEqual(fromF(shifted, p) + 1e-9)
          floored++
        } else {
          expect(held[p]).toBe(free[p])
          expect(colour(coloursHeld, p)).toEqual(colour(coloursFree, p))
        }
      }
    }
    expect(floored).toBeGreaterThanOrEqual(2 * height)
  })

  it('answers the same whether the rects are done at once or in parts (the image threads split them)', () => {
    const once = Uint8Array.from(step)
    const coloursOnce = Uint8Array.from(photo)
    sampleEdgesRect(step, photo, width, height, whole, sampling, once, coloursOnce)
    const parts = Uint8Array.from(step)
    const coloursParts = Uint8Array.from(photo)
    // The colours double as the photo (the remover passes its copy of the picture as both).
    for (const rect of [{ x0: 0, y0: 0, x1: 72, y1: height }, { x0: 72, y0: 0, x1: width, y1: 40 }, { x0: 72, y0: 40, x1: width, y1: height }]) {
      sampleEdgesRect(step, coloursParts, width, height, rect, sampling, parts, coloursParts)
    }
    expect(Buffer.from(parts).equals(Buffer.from(once))).toBe(true)
    expect(Buffer.from(coloursParts).equals(Buffer.from(coloursOnce))).toBe(true)
  })
})
