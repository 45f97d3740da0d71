import { describe, expect, it } from 'vitest'
import { alphaMAE, alphaSAD, boundaryF, colourBleed, edgeBand, edgeBandErrors, gradientError, maskIoU } from './quality-metrics'

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
})
