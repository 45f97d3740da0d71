// The pure rules a correction applies to a matte (decision 157), one byte a pixel at the result's
// size: the brush mask's blend, grow/shrink, and the parts of the model's matte. No I/O here.
import type { Box, MattePart, PartDecision } from './types'

/** The brush mask's neutral value: the model's (refined) matte is left as it is. */
export const MASK_NEUTRAL = 128

/** A brush mask's strokes: its values over `box` of the matte (row-major, box.width a row); 128 elsewhere. */
export interface MaskLayer {
  data: Uint8Array
  box: Box
}

/**
 * The brush mask over the matte (`width` a row), in place: m > 128 moves alpha toward 255 by
 * (m − 128)/127 (white restores fully), m < 128 scales it by m/128 (black removes fully), 128
 * leaves it. Only the layer's box is read: outside it the mask is 128.
 */
export function blendMask(alpha: Uint8Array, width: number, mask: MaskLayer): void {
  const { x, y, width: w, height: h } = mask.box
  if (mask.data.length !== w * h || x < 0 || y < 0 || x + w > width || (y + h) * width > alpha.length) {
    throw new RangeError('the mask does not fit the matte')
  }
  for (let row = 0; row < h; row++) {
    const from = row * w
    const to = (y + row) * width + x
    for (let k = 0; k < w; k++) {
      const m = mask.data[from + k]
      if (m === MASK_NEUTRAL) continue
      const p = to + k
      const a = alpha[p]
      alpha[p] = m > MASK_NEUTRAL ? Math.round(a + ((255 - a) * (m - MASK_NEUTRAL)) / 127) : Math.round((a * m) / MASK_NEUTRAL)
    }
  }
}

/**
 * The running maximum (or minimum) of a window of 2r+1 values along `count` lines of `length`
 * values each (van Herk / Gil-Werman: three comparisons a value whatever r). A line's k-th value
 * is at start + k·step; lines start `lineStep` apart. Outside the picture counts as the identity
 * (0 for max, 255 for min): an edge of the picture neither grows nor eats the subject.
 */
function slidingExtreme(
  data: Uint8Array,
  length: number,
  step: number,
  count: number,
  lineStep: number,
  r: number,
  grow: boolean,
): void {
  const identity = grow ? 0 : 255
  const pick = grow ? (a: number, b: number) => (a > b ? a : b) : (a: number, b: number) => (a < b ? a : b)
  const k = 2 * r + 1
  const padded = length + 2 * r
  const blocks = Math.ceil(padded / k) * k
  const line = new Uint8Array(blocks)
  const prefix = new Uint8Array(blocks)
  const suffix = new Uint8Array(blocks)
  for (let l = 0; l < count; l++) {
    const start = l * lineStep
    line.fill(identity)
    for (let i = 0; i < length; i++) line[r + i] = data[start + i * step]
    for (let b = 0; b < blocks; b += k) {
      prefix[b] = line[b]
      for (let i = b + 1; i < b + k; i++) prefix[i] = pick(prefix[i - 1], line[i])
      suffix[b + k - 1] = line[b + k - 1]
      for (let i = b + k - 2; i >= b; i--) suffix[i] = pick(suffix[i + 1], line[i])
    }
    // The window of value i (padded index i + r) is padded i..i+2r: suffix at i, prefix at i + 2r.
    for (let i = 0; i < length; i++) data[start + i * step] = pick(suffix[i], prefix[i + 2 * r])
  }
}

/** Grows (px > 0: a square max filter of radius px) or shrinks (px < 0: min) the matte in place. */
export function growMatte(alpha: Uint8Array, width: number, height: number, px: number): void {
  if (px === 0) return
  const r = Math.abs(Math.round(px))
  slidingExtreme(alpha, width, 1, height, width, r, px > 0)
  slidingExtreme(alpha, height, width, width, 1, r, px > 0)
}

/** A pixel of the model's matte at or above this belongs to a part (about 5 %: the soft fringe counts, the backdrop's noise not). */
export const PART_ALPHA = 13
/** A part is listed when its mean model alpha reaches this (0..1)... */
export const PART_MIN_MEAN_ALPHA = 0.3
/** ...over at least this share of the picture. */
export const PART_MIN_SHARE = 0.001
/** The refinement keeps a part when its refined alpha is at least 128 over this share of its pixels. */
export const PART_KEPT_SHARE = 0.5

/** A part with the runs of pixels it is made of (offset into the picture, length). */
export interface PartPixels extends MattePart {
  runs: Array<[number, number]>
}

/**
 * The parts of the model's matte at full size: 4-connected regions of pixels at or above
 * PART_ALPHA whose mean alpha reaches PART_MIN_MEAN_ALPHA over at least PART_MIN_SHARE of the
 * picture; for each, whether the refined matte keeps it. Largest first, ids "1", "2"...
 */
export function findParts(model: Uint8Array, refined: Uint8Array, width: number, height: number): PartPixels[] {
  // Runs of a row, then union-find of the runs that touch the previous row's.
  const runStart: number[] = []
  const runEnd: number[] = []
  const runRow: number[] = []
  const parent: number[] = []
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]]
      x = parent[x]
    }
    return x
  }
  let previousFrom = 0
  let previousTo = 0
  for (let y = 0; y < height; y++) {
    const row = y * width
    const from = runStart.length
    for (let x = 0; x < width; ) {
      if (model[row + x] < PART_ALPHA) {
        x++
        continue
      }
      const start = x
      while (x < width && model[row + x] >= PART_ALPHA) x++
      const id = runStart.length
      runStart.push(start)
      runEnd.push(x)
      runRow.push(y)
      parent.push(id)
      for (let q = previousFrom; q < previousTo; q++) {
        if (runEnd[q] <= start || runStart[q] >= x) continue
        const a = find(q)
        const b = find(id)
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b)
      }
    }
    previousFrom = from
    previousTo = runStart.length
  }
  const byRoot = new Map<number, { runs: Array<[number, number]>; area: number; sum: number; kept: number; x0: number; y0: number; x1: number; y1: number }>()
  for (let r = 0; r < runStart.length; r++) {
    const root = find(r)
    let part = byRoot.get(root)
    if (!part) byRoot.set(root, (part = { runs: [], area: 0, sum: 0, kept: 0, x0: width, y0: height, x1: 0, y1: 0 }))
    const offset = runRow[r] * width + runStart[r]
    const length = runEnd[r] - runStart[r]
    part.runs.push([offset, length])
    part.area += length
    for (let p = offset; p < offset + length; p++) {
      part.sum += model[p]
      if (refined[p] >= 128) part.kept++
    }
    part.x0 = Math.min(part.x0, runStart[r])
    part.x1 = Math.max(part.x1, runEnd[r])
    part.y0 = Math.min(part.y0, runRow[r])
    part.y1 = Math.max(part.y1, runRow[r] + 1)
  }
  const minArea = PART_MIN_SHARE * width * height
  return [...byRoot.values()]
    .filter((part) => part.area >= minArea && part.sum / part.area / 255 >= PART_MIN_MEAN_ALPHA)
    .sort((a, b) => b.area - a.area)
    .map((part, index) => ({
      id: String(index + 1),
      box: { x: part.x0, y: part.y0, width: part.x1 - part.x0, height: part.y1 - part.y0 } satisfies Box,
      area: part.area,
      meanAlpha: Math.round((part.sum / part.area / 255) * 1000) / 1000,
      keptByRefinement: part.kept >= PART_KEPT_SHARE * part.area,
      runs: part.runs,
    }))
}

/**
 * The user's part decisions over the matte, in place: keeping a part the refinement dropped
 * brings its model alpha back; removing a part zeroes it; keeping a kept part changes nothing.
 */
export function applyPartDecisions(alpha: Uint8Array, model: Uint8Array, parts: PartPixels[], decisions: Record<string, PartDecision>): void {
  for (const part of parts) {
    const decision = decisions[part.id]
    if (!decision || (decision === 'keep' && part.keptByRefinement)) continue
    for (const [offset, length] of part.runs) {
      if (decision === 'remove') alpha.fill(0, offset, offset + length)
      else for (let p = offset; p < offset + length; p++) alpha[p] = Math.max(alpha[p], model[p])
    }
  }
}

/** The part without its pixels (what is listed and stored). */
export function partSummary({ runs: _runs, ...part }: PartPixels): MattePart {
  return part
}
