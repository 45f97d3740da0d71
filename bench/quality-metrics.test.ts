import { describe, expect, it } from 'vitest'
import {
  alphaMAE,
  alphaSAD,
  boundaryF,
  colourBleed,
  edgeBand,
  edgeBandErrors,
  gradientError,
  maskIoU,
  partRecall,
  thinPartRecall,
  thinPixels,
} from './quality-metrics'

// Tiny hand-made images whose answers are worked out by hand.
const bytes = (...values: number[]) => Uint8Array.from(values)

describe('matte-quality metrics', () => {
  it('IoU of the masks at alpha 128', () => {
    // Truth sets pixels 0-1, the prediction 1-2 (127 is clear): 1 shared of 3.
    expect(maskIoU(bytes(255, 200, 0, 0), bytes(127, 128, 255, 0))).toBeCloseTo(1 / 3, 10)
    expect(maskIoU(bytes(0, 0), bytes(0, 10))).toBe(1)
  })

  it('alpha MAE and SAD on 0..1 alphas', () => {
    const truth = bytes(255, 0, 51, 255)
    const predicted = bytes(0, 0, 102, 255)
    // |1| + 0 + |0.2| + 0 = 1.2 over 4 pixels.
    expect(alphaMAE(truth, predicted)).toBeCloseTo(0.3, 10)
    expect(alphaSAD(truth, predicted)).toBeCloseTo(0.0012, 10)
  })

  it('gradient error is 0 for the same matte and grows with a wrong edge', () => {
    const width = 12
    const height = 12
    const edgeAt = (column: number) => Uint8Array.from({ length: width * height }, (_, p) => (p % width < column ? 255 : 0))
    expect(gradientError(edgeAt(6), edgeAt(6), width, height)).toBe(0)
    // An edge moved a pixel costs less than an edge missing altogether.
    const moved = gradientError(edgeAt(6), edgeAt(7), width, height)
    const missing = gradientError(edgeAt(6), new Uint8Array(width * height), width, height)
    expect(moved).toBeGreaterThan(0)
    expect(missing).toBeGreaterThan(moved)
  })

  it('boundary F-measure counts boundary pixels within the tolerance', () => {
    // 8×8, truth: a 4×4 square at (2,2); its boundary is its 12 outer pixels.
    const width = 8
    const height = 8
    const square = (left: number, top: number, side: number) =>
      Uint8Array.from({ length: width * height }, (_, p) => {
        const x = p % width
        const y = Math.floor(p / width)
        return x >= left && x < left + side && y >= top && y < top + side ? 255 : 0
      })
    expect(boundaryF(square(2, 2, 4), square(2, 2, 4), width, height, 0)).toBe(1)
    // Shifted one pixel right: at tolerance 1 every boundary pixel has a partner, at 0 only those that overlap.
    expect(boundaryF(square(2, 2, 4), square(3, 2, 4), width, height, 1)).toBe(1)
    // At tolerance 0 only the rows y=2 and y=5 share boundary pixels, x=3..5 (3 each); the side
    // columns (x=2, 5 against x=3, 6) lie on the other square's inside: 6 of 12 on each side, F = 1/2.
    expect(boundaryF(square(2, 2, 4), square(3, 2, 4), width, height, 0)).toBeCloseTo(1 / 2, 10)
    expect(boundaryF(square(2, 2, 4), new Uint8Array(width * height), width, height, 3)).toBe(0)
  })

  it('colour bleed looks only where the truth is partly transparent and the cutout kept the pixel', () => {
    const truthAlpha = bytes(255, 128, 128, 0)
    const truthRgb = bytes(0, 0, 0, 100, 100, 100, 10, 20, 30, 0, 0, 0)
    const predictedAlpha = bytes(255, 200, 0, 0)
    // Pixel 0 is opaque in the truth, pixel 2 is cut away, pixel 3 is clear: only pixel 1 counts.
    const predictedRgb = bytes(255, 255, 255, 130, 70, 100, 255, 255, 255, 255, 255, 255)
    expect(colourBleed(truthAlpha, truthRgb, predictedAlpha, predictedRgb)).toBeCloseTo(20, 10)
    expect(colourBleed(bytes(255), bytes(1, 2, 3), bytes(255), bytes(1, 2, 3))).toBeNaN()
  })

  it('the edge band holds the pixels near the true edge, and its errors count nothing else', () => {
    // 10×1: truth opaque on x 0..4, a partly transparent pixel at 5, clear from 6.
    const truth = bytes(255, 255, 255, 255, 255, 100, 0, 0, 0, 0)
    // Edge pixels: 4 and 5 (the mask changes between them) and 5 (partial); within 1 px: 3..6.
    expect([...edgeBand(truth, 10, 1, 1)]).toEqual([0, 0, 0, 1, 1, 1, 1, 0, 0, 0])
    // A 10×10 picture of that row repeated (tolerance 1 px): an error far from the edge (x 0, 9) is left out.
    const width = 10
    const square = Uint8Array.from({ length: 100 }, (_, p) => truth[p % width])
    const wrong = Uint8Array.from(square, (v, p) => (p % width === 9 ? 255 : p % width === 5 ? 151 : v))
    // Band: x 3..6 on each of 10 rows (40 pixels); the only error inside is |151 − 100| = 51 (0.2) on 10 rows.
    const { mae, sad } = edgeBandErrors(square, wrong, width, 10)
    expect(mae).toBeCloseTo((10 * 0.2) / 40, 10)
    expect(sad).toBeCloseTo(0.002, 10)
    expect(edgeBandErrors(new Uint8Array(100), new Uint8Array(100).fill(255), width, 10).mae).toBeNaN()
  })

  /** A width × height matte holding `value` in each given rectangle (x, y, w, h), 0 elsewhere. */
  const drawn = (width: number, height: number, rects: [number, number, number, number, number][]) => {
    const matte = new Uint8Array(width * height)
    for (const [x0, y0, w, h, value] of rects) for (let y = y0; y < y0 + h; y++) matte.fill(value, y * width + x0, y * width + x0 + w)
    return matte
  }

  it('part recall averages, over the confident parts, the share of each the cutout keeps at 0.5', () => {
    // 40×40 (0.1 % is 1.6 px): a solid 10×10 part, and a 4×4 part held at 100 (0.39: confident, under 0.5).
    const reference = drawn(40, 40, [
      [2, 2, 10, 10, 255],
      [30, 30, 4, 4, 100],
    ])
    // The solid part kept whole, the faint one lost: (1 + 0) / 2.
    expect(partRecall(reference, drawn(40, 40, [[2, 2, 10, 10, 255]]), 40, 40)).toBe(0.5)
    // Half the solid part's rows kept, the faint one made solid: (0.5 + 1) / 2.
    const cutout = drawn(40, 40, [
      [2, 2, 10, 5, 255],
      [30, 30, 4, 4, 200],
    ])
    expect(partRecall(reference, cutout, 40, 40)).toBe(0.75)
    // The faint part kept at its own 100 is not kept: 0.5 is the line.
    expect(partRecall(reference, reference, 40, 40)).toBe(0.5)
  })

  it('a part\'s soft rim is no loss, and faint or tiny regions are no parts', () => {
    // 100×100 (0.1 % is 10 px): a 10×10 core at 255 inside a rim at 100; a 3×3 speck (9 px); a 20×20 haze at 76 (under 0.3).
    const reference = drawn(100, 100, [
      [9, 9, 12, 12, 100],
      [10, 10, 10, 10, 255],
      [60, 60, 3, 3, 255],
      [70, 10, 20, 20, 76],
    ])
    // The core alone: everything the part holds at 0.5 is kept; the speck and the haze do not count.
    expect(partRecall(reference, drawn(100, 100, [[10, 10, 10, 10, 255]]), 100, 100)).toBe(1)
    // A quarter of the core lost (its left 5 × 5): 75 of 100.
    expect(partRecall(reference, drawn(100, 100, [[10, 10, 10, 10, 255], [10, 10, 5, 5, 0]]), 100, 100)).toBe(0.75)
    expect(partRecall(drawn(100, 100, [[60, 60, 3, 3, 255]]), reference, 100, 100)).toBeNaN()
  })

  it('thin pixels are those of parts narrower than 8 px', () => {
    // 30×30: a stroke 3 px wide (x 2-4, all rows), a 7 px one (x 8-14, rows 0-9), an 8 px one (x 8-15, rows 20-29) and a 10×10 square.
    const matte = drawn(30, 30, [
      [2, 0, 3, 30, 255],
      [8, 0, 7, 10, 255],
      [8, 20, 8, 10, 255],
      [18, 10, 10, 10, 200],
    ])
    const thin = thinPixels(matte, 30, 30)
    const at = (x: number, y: number) => thin[y * 30 + x]
    expect(thin.reduce((n, v) => n + v, 0)).toBe(3 * 30 + 7 * 10)
    expect([at(2, 15), at(4, 0), at(14, 9)]).toEqual([1, 1, 1])
    expect([at(8, 20), at(15, 29), at(18, 10), at(27, 19), at(1, 15)]).toEqual([0, 0, 0, 0, 0])
  })

  it('thin-part recall is the share of the true thin pixels the cutout keeps at 0.5', () => {
    const truth = drawn(30, 30, [
      [2, 0, 3, 30, 255],
      [18, 10, 10, 10, 255],
    ])
    // The stroke's top half kept at 128, its bottom half at 127; the square lost does not count.
    const cutout = drawn(30, 30, [
      [2, 0, 3, 15, 128],
      [2, 15, 3, 15, 127],
    ])
    expect(thinPartRecall(truth, cutout, 30, 30)).toBe(0.5)
    expect(thinPartRecall(drawn(30, 30, [[18, 10, 10, 10, 255]]), cutout, 30, 30)).toBeNaN()
  })
})
