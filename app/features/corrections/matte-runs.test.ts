// The refined matte kept as runs and edge bytes (decision 182) must open to exactly the matte kept.
import { describe, expect, it } from 'vitest'
import { fromRuns, MIN_RUN, toRuns } from './matte-runs'

/** A matte as the refinement leaves one: background, subject, and soft edges between them. */
function matte(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = Math.hypot(x - width / 2, y - height / 2) - height / 3
      out[y * width + x] = d < -4 ? 255 : d > 4 ? 0 : Math.round(((4 - d) / 8) * 255)
    }
  }
  return out
}

describe('the matte as runs', () => {
  it('opens to exactly the matte kept, and keeps the edge only as bytes', () => {
    const original = matte(400, 300)
    const split = toRuns(original)
    expect(Buffer.from(fromRuns(split, original.length)).equals(Buffer.from(original))).toBe(true)
    // The runs carry most of it: what is left is the edge and the short stretches beside it.
    expect(split.literals.length).toBeLessThan(original.length / 5)
    expect(split.runs.length % 2).toBe(0)
  })

  it('keeps a stretch of 0 or 255 shorter than a run as bytes, and handles a matte of no runs, of one run and of nothing', () => {
    const cases = [
      new Uint8Array(0),
      new Uint8Array(1000).fill(255),
      new Uint8Array(1000).map((_, i) => (i * 7) % 256),
      Uint8Array.from({ length: 3 * MIN_RUN }, (_, i) => (i < MIN_RUN - 1 ? 0 : i < 2 * MIN_RUN ? 255 : 17)),
      Uint8Array.from({ length: 500 }, (_, i) => (i % 100 < 60 ? 0 : 128)),
    ]
    for (const original of cases) {
      const split = toRuns(original)
      expect(Array.from(fromRuns(split, original.length))).toEqual(Array.from(original))
    }
    expect(toRuns(cases[1]!).literals.length).toBe(0)
    expect(toRuns(cases[2]!).runs.length).toBe(0)
  })

  it('refuses runs that do not fit the size asked for', () => {
    const split = toRuns(new Uint8Array(100).fill(255))
    expect(() => fromRuns(split, 99)).toThrow(RangeError)
    expect(() => fromRuns({ runs: Uint32Array.from([50, 100]), literals: new Uint8Array(50) }, 100)).toThrow(RangeError)
  })
})

describe('the matte as runs, from any offset', () => {
  it('gives the same split whether the matte sits on a word boundary or not', () => {
    const original = matte(203, 97)
    const shifted = new Uint8Array(original.length + 3)
    shifted.set(original, 3)
    const unaligned = shifted.subarray(3)
    const a = toRuns(original)
    const b = toRuns(unaligned)
    expect(Array.from(b.runs)).toEqual(Array.from(a.runs))
    expect(Buffer.from(b.literals).equals(Buffer.from(a.literals))).toBe(true)
    expect(Buffer.from(fromRuns(a, original.length)).equals(Buffer.from(original))).toBe(true)
  })
})
