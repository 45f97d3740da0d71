// Full-resolution clean-up of a segmentation matte: keep the subject's big connected parts that are in focus,
// fill holes the model left inside it, and keep the edge soft only in a narrow band; optionally
// (matte-edges.mjs) a guided filter of the edge and foreground colours for its partly transparent pixels,
// or sampling matting in the uncertain band (alpha and foreground colour from nearby sure pixels).
import os from 'node:os'
import sharp from 'sharp'
import { edgeRects, foregroundRect, fusionFields, guidedFilterRect, sampleEdgesRect, type EdgeSampling } from './matte-edges.mjs'
import { DEFOCUSED_PART_WEIGHT, defocusedParts, type FocusRule } from './matte-focus.server'
import type { Regions } from './regions'
import { thresholdMatte } from './matte-tiles.mjs'
import { imageThreads } from './image-threads.server'

/**
 * How far the remover refines the model's matte (docs/decisions/090, 128): `model` only enlarges it
 * (the benchmark's reference), `classic` cleans it up (specks, holes, a narrow soft band: decision
 * 068), `guided` adds a guided filter of the edge with the photo as guide, `edges` also gives partly
 * transparent pixels blur-fusion's foreground colour; `sampled` (the default since 128) is classic,
 * then sampling matting in the uncertain band: alpha and the foreground colour solved from the
 * nearest sure foreground pixel and the sure background around.
 */
export const MATTE_REFINEMENTS = ['model', 'classic', 'guided', 'edges', 'sampled'] as const
export type MatteRefinementLevel = (typeof MATTE_REFINEMENTS)[number]

export interface MatteRefinement {
  /** Components smaller than this share of the largest one are dropped as specks. */
  minComponentShare: number
  /** Components out of focus where another is sharp are dropped too (decision 153). */
  focus?: FocusRule
  /** Gaussian sigma (px) of the soft band along the edge. */
  edgeSigma: number
  /** A hole whose mean colour is this close (RGB distance) to a uniform backdrop is real background, kept see-through. */
  backdropDistance: number
  /** The guided filter of the edge: its boxes' radius (px) and regularisation (alpha and luma as 0..1). */
  guidedFilter?: { radius: number; eps: number }
  /** Blur-fusion's foreground colours: the wide pass's radius in FUSION_CELL cells, the narrow one's in px. */
  foregroundColours?: { cellRadius: number; radius: number }
  /** Sampling matting in the uncertain band (sampleEdgesRect): alpha, and foreground colours when `colours` are given. */
  edgeSampling?: EdgeSampling
}

/** Sigma of the blur that makes the soft band along the outline. */
function edgeBlurSigma(options: Pick<MatteRefinement, 'edgeSigma'>): number {
  return Math.max(0.3, options.edgeSigma)
}

/**
 * How far (px) from the outline of the thresholded matte refineMatte can answer anything but 0 or
 * 255, or read the soft matte's value: the edge blur's reach (about 1.8 sigma in libvips, whose mask
 * stops below a fifth of its peak), with a wide margin.
 */
export function softBandReach(options: Pick<MatteRefinement, 'edgeSigma'>): number {
  return Math.ceil(3 * edgeBlurSigma(options)) + 2
}

/** A growable Int32Array, for run tables whose size is known only after the scan. */
class IntList {
  values = new Int32Array(4096)
  length = 0
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Int32Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.length++] = value
  }
}

/**
 * Labels the connected regions of pixels that are set (`target` 1) or clear (0) in a binary image
 * whose set pixels hold `set` (1, or 255 in a mask). Works on horizontal runs rather than pixels
 * (union-find over runs that touch the run above), so a 12 MP matte of a few large regions costs a
 * few hundred thousand unions instead of twelve million. Labels run 1..count in the order each
 * region's first pixel appears in raster order.
 */
export function labelRegions(
  binary: Uint8Array,
  target: 0 | 1,
  width: number,
  height: number,
  eightConnected: boolean,
  set: 1 | 255 = 1,
): Regions {
  // Runs in raster order: start x, end x (exclusive), row, provisional label.
  const starts = new IntList()
  const ends = new IntList()
  const rows = new IntList()
  const runLabels = new IntList()
  let parent = new Int32Array(4096)
  let next = 1
  const find = (label: number): number => {
    let root = label
    while (parent[root] !== root) root = parent[root]
    while (parent[label] !== root) {
      const up = parent[label]
      parent[label] = root
      label = up
    }
    return root
  }
  // The smaller root wins, so a set's root is its first label: dense numbering keeps raster order.
  const join = (a: number, b: number): number => {
    const ra = find(a)
    const rb = find(b)
    if (ra === rb) return ra
    if (ra < rb) {
      parent[rb] = ra
      return ra
    }
    parent[ra] = rb
    return rb
  }
  // Diagonal neighbours count with eight-connectivity: a run above may then end one pixel earlier or start one later.
  const reach = eightConnected ? 1 : 0
  // Pixels are 0 or `set`: four of them in one 32-bit word when the buffer is aligned.
  const words = wordsOf(binary)
  const value = target ? set : 0
  const targetWord = (value * 0x01010101) >>> 0
  const otherWord = ((set - value) * 0x01010101) >>> 0
  let previousFirst = 0
  let previousEnd = 0
  for (let y = 0; y < height; y++) {
    const rowStart = y * width
    const currentFirst = starts.length
    let j = previousFirst
    for (let x = 0; x < width; ) {
      // Four pixels at a time where a whole aligned word is outside (or, below, inside) the target.
      const p = rowStart + x
      if (words && (p & 3) === 0 && x + 4 <= width && words[p >>> 2] === otherWord) {
        x += 4
        continue
      }
      if (binary[p] !== value) {
        x++
        continue
      }
      const start = x
      while (x < width) {
        const q = rowStart + x
        if (words && (q & 3) === 0 && x + 4 <= width && words[q >>> 2] === targetWord) x += 4
        else if (binary[q] === value) x++
        else break
      }
      const end = x
      let label = 0
      while (j < previousEnd && ends.values[j] + reach <= start) j++
      for (let k = j; k < previousEnd && starts.values[k] < end + reach; k++) {
        const above = runLabels.values[k]
        label = label ? join(label, above) : above
      }
      if (!label) {
        if (next >= parent.length) {
          const grown = new Int32Array(parent.length * 2)
          grown.set(parent)
          parent = grown
        }
        parent[next] = next
        label = next++
      }
      starts.push(start)
      ends.push(end)
      rows.push(y)
      runLabels.push(label)
    }
    previousFirst = currentFirst
    previousEnd = starts.length
  }
  const dense = new Int32Array(next)
  let count = 0
  for (let label = 1; label < next; label++) {
    const root = find(label)
    dense[label] = root === label ? ++count : dense[root]
  }
  const runCount = starts.length
  const runs = { offsets: new Int32Array(runCount), lengths: new Int32Array(runCount), labels: new Int32Array(runCount) }
  const areas = new Float64Array(count + 1)
  const touchesBorder = new Uint8Array(count + 1)
  for (let r = 0; r < runCount; r++) {
    const d = dense[runLabels.values[r]]
    const start = starts.values[r]
    const end = ends.values[r]
    const row = rows.values[r]
    runs.offsets[r] = row * width + start
    runs.lengths[r] = end - start
    runs.labels[r] = d
    areas[d] += end - start
    if (row === 0 || row === height - 1 || start === 0 || end === width) touchesBorder[d] = 1
  }
  return { runs, count, areas, touchesBorder }
}

/**
 * A part of a matte held with real confidence (DESIGN, turn 4; issue 32): a connected region (eight
 * neighbours) of pixels at or above CONFIDENT_ALPHA (0.3) over at least CONFIDENT_MIN_SHARE (0.1 %) of
 * the image; its mean alpha is then at least 0.3 too. No rule of the refinement removes one (specks
 * are smaller), and the quality bench's part recalls count them.
 */
export const CONFIDENT_ALPHA = 77
export const CONFIDENT_MIN_SHARE = 0.001

/** The connected regions of `matte` at or above CONFIDENT_ALPHA, and which of them are confident parts (1, by label). */
export function confidentParts(matte: Uint8Array, width: number, height: number): { parts: Regions; confident: Uint8Array } {
  const held = new Uint8Array(width * height)
  for (let p = 0; p < held.length; p++) held[p] = matte[p] >= CONFIDENT_ALPHA ? 1 : 0
  const parts = labelRegions(held, 1, width, height, true)
  const confident = new Uint8Array(parts.count + 1)
  const minArea = CONFIDENT_MIN_SHARE * width * height
  for (let label = 1; label <= parts.count; label++) if (parts.areas[label] >= minArea) confident[label] = 1
  return { parts, confident }
}

/**
 * Mean and spread of the colours on the image border that the matte calls background. Every
 * background pixel on the border belongs to a background region that touches the border.
 */
function backdropColour(rgba: Buffer, mask: Uint8Array, width: number, height: number): { mean: number[]; spread: number } | null {
  const sums = [0, 0, 0]
  const squares = [0, 0, 0]
  let n = 0
  const add = (p: number) => {
    if (mask[p]) return
    for (let k = 0; k < 3; k++) {
      const v = rgba[p * 4 + k]
      sums[k] += v
      squares[k] += v * v
    }
    n++
  }
  for (let x = 0; x < width; x++) {
    add(x)
    add((height - 1) * width + x)
  }
  for (let y = 1; y < height - 1; y++) {
    add(y * width)
    add(y * width + width - 1)
  }
  if (n === 0) return null
  const mean = sums.map((s) => s / n)
  const spread = Math.sqrt(squares.reduce((acc, s, k) => acc + s / n - mean[k] * mean[k], 0))
  return { mean, spread }
}

/** For each region of `inner` (by label), the region of `outer` that holds it: every run of `inner` lies within one run of `outer`. */
function enclosingRegions(inner: Regions, outer: Regions): Int32Array {
  const enclosing = new Int32Array(inner.count + 1)
  const { offsets, lengths, labels } = outer.runs
  let j = 0
  for (let r = 0; r < inner.runs.labels.length; r++) {
    const start = inner.runs.offsets[r]
    while (offsets[j] + lengths[j] <= start) j++
    enclosing[inner.runs.labels[r]] = labels[j]
  }
  return enclosing
}

/** A confident part out of focus, kept at a lower weight: its pixels' alpha (the model's, times the weight) pasted back at the end. */
interface WeighedPart {
  offsets: number[]
  alphas: Buffer[]
}

/**
 * Step 1: the matte's parts. Specks (under minComponentShare of the largest part, and within no
 * confident part: confidentParts) are dropped; no confident part is (DESIGN, turn 4: a rule may soften
 * or clean the matte, never silently delete a part the model holds with real confidence). A confident
 * part the model holds only at 0.3-0.5 joins the mask. With a focus rule, a part out of focus where
 * another is sharp (matte-focus.server.ts: the backdrop's own subject, most often) is taken out of the
 * mask and answered, to be pasted back at the end at the rule's weight: softened, not deleted, unless
 * the model joins it to a sharp part (then it is one part, kept whole). Parts under the speck share
 * take no part in that comparison. Answers null when the mask is empty.
 */
function sortParts(mask: Uint8Array, soft: Buffer, rgba: Buffer, width: number, height: number, options: MatteRefinement): WeighedPart | null {
  const held = confidentParts(soft, width, height)
  let parts = labelRegions(mask, 1, width, height, true, 255)
  let heldBy = enclosingRegions(parts, held.parts)
  const hasMask = new Uint8Array(held.parts.count + 1)
  for (let label = 1; label <= parts.count; label++) hasMask[heldBy[label]] = 1
  let joined = false
  const { offsets: heldOffsets, lengths: heldLengths, labels: heldLabels } = held.parts.runs
  for (let r = 0; r < heldLabels.length; r++) {
    if (!held.confident[heldLabels[r]] || hasMask[heldLabels[r]]) continue
    mask.fill(255, heldOffsets[r], heldOffsets[r] + heldLengths[r])
    joined = true
  }
  if (joined) {
    parts = labelRegions(mask, 1, width, height, true, 255)
    heldBy = enclosingRegions(parts, held.parts)
  }
  let largest = 0
  for (let label = 1; label <= parts.count; label++) if (parts.areas[label] > largest) largest = parts.areas[label]
  if (largest === 0) return null
  const { offsets, lengths, labels } = parts.runs
  const clear = (r: number) => {
    mask.fill(0, offsets[r], offsets[r] + lengths[r])
    soft.fill(0, offsets[r], offsets[r] + lengths[r])
  }
  const confident = (label: number) => held.confident[heldBy[label]] === 1
  const small = (label: number) => parts.areas[label] < largest * options.minComponentShare
  for (let r = 0; r < labels.length; r++) if (small(labels[r]) && !confident(labels[r])) clear(r)
  const weighed: WeighedPart = { offsets: [], alphas: [] }
  if (!options.focus) return weighed
  // Parts under the speck share that are kept take no part in the focus rule: a small part is no
  // sharp reference for the subject (decision 153), and none is taken out for its focus either.
  const aside = (r: number) => small(labels[r]) && confident(labels[r])
  for (let r = 0; r < labels.length; r++) if (aside(r)) mask.fill(0, offsets[r], offsets[r] + lengths[r])
  const defocused = defocusedParts(mask, rgba, width, height, parts, options.focus)
  for (let r = 0; r < labels.length; r++) if (aside(r)) mask.fill(255, offsets[r], offsets[r] + lengths[r])
  if (defocused.size === 0) return weighed
  // A confident region of the model's that holds a sharp part too is kept whole.
  const sharpHeld = new Uint8Array(held.parts.count + 1)
  for (let r = 0; r < labels.length; r++) if (mask[offsets[r]] && !defocused.has(labels[r])) sharpHeld[heldBy[labels[r]]] = 1
  const weighedHeld = new Uint8Array(held.parts.count + 1)
  for (const label of defocused) if (!confident(label) || !sharpHeld[heldBy[label]]) weighedHeld[heldBy[label]] = 1
  const weight = options.focus.weight ?? DEFOCUSED_PART_WEIGHT
  for (let r = 0; r < heldLabels.length; r++) {
    if (!weighedHeld[heldLabels[r]] || !held.confident[heldLabels[r]]) continue
    const run = soft.subarray(heldOffsets[r], heldOffsets[r] + heldLengths[r])
    weighed.offsets.push(heldOffsets[r])
    // Rounded down: a part weighed at 0.5 stays under the mask's threshold.
    weighed.alphas.push(Buffer.from(run.map((v) => Math.floor(v * weight))))
  }
  for (let r = 0; r < labels.length; r++) if (defocused.has(labels[r]) && weighedHeld[heldBy[labels[r]]]) clear(r)
  return weighed
}

/** A backdrop is uniform when this share of the border pixels outside the mask lie near their median colour. */
const UNIFORM_BORDER_SHARE = 0.9

/**
 * The colour of a uniform backdrop (each channel's median over the border pixels the mask calls
 * background), or null when fewer than UNIFORM_BORDER_SHARE of them lie within `distance` of it. A
 * median, not a mean: a product cropped tight touches the frame, and its pixels there must not make
 * a white backdrop look mixed.
 */
function uniformBackdrop(rgba: Buffer, mask: Uint8Array, width: number, height: number, distance: number): number[] | null {
  const border: number[] = []
  const add = (p: number) => {
    if (!mask[p]) border.push(p)
  }
  for (let x = 0; x < width; x++) {
    add(x)
    if (height > 1) add((height - 1) * width + x)
  }
  for (let y = 1; y < height - 1; y++) {
    add(y * width)
    if (width > 1) add(y * width + width - 1)
  }
  if (border.length === 0) return null
  const median = [0, 1, 2].map((k) => {
    const values = border.map((p) => rgba[p * 4 + k]).sort((a, b) => a - b)
    return values[values.length >> 1]
  })
  const near = border.filter((p) => Math.hypot(rgba[p * 4] - median[0], rgba[p * 4 + 1] - median[1], rgba[p * 4 + 2] - median[2]) < distance).length
  return near >= UNIFORM_BORDER_SHARE * border.length ? median : null
}

/**
 * Over a uniform backdrop, a colour this many times `backdropDistance` from the backdrop's median is
 * plainly something else: the router's antenna on white is 400 away, a backdrop's own noise under 24.
 */
const KEY_DISTANCE_SHARE = 3

/**
 * Step 1b: over a uniform backdrop (a product on white), the mask grows into every pixel connected to
 * it whose colour is plainly not the backdrop's (KEY_DISTANCE_SHARE). A model at 320² loses a part a
 * few px wide (the router's right antenna: its matte holds under 0.05 there) that the photo shows
 * plainly; a rule that sees it must not leave it out (DESIGN, turn 4). Over a photo backdrop nothing
 * changes: its colours are not uniform.
 */
function growOverBackdrop(mask: Uint8Array, rgba: Buffer, width: number, height: number, backdropDistance: number): void {
  const backdrop = uniformBackdrop(rgba, mask, width, height, backdropDistance)
  if (!backdrop) return
  const [r, g, b] = backdrop
  const limit = (KEY_DISTANCE_SHARE * backdropDistance) ** 2
  const plainlyNot = (p: number) => (rgba[p * 4] - r) ** 2 + (rgba[p * 4 + 1] - g) ** 2 + (rgba[p * 4 + 2] - b) ** 2 > limit
  let queue = new Int32Array(1024)
  let length = 0
  const take = (p: number) => {
    mask[p] = 255
    if (length === queue.length) {
      const grown = new Int32Array(queue.length * 2)
      grown.set(queue)
      queue = grown
    }
    queue[length++] = p
  }
  // Seeds: pixels outside the mask beside it (left, right, above, below).
  for (let y = 0; y < height; y++) {
    for (let x = 0, p = y * width; x < width; x++, p++) {
      if (mask[p] || !plainlyNot(p)) continue
      if ((x > 0 && mask[p - 1]) || (x < width - 1 && mask[p + 1]) || (y > 0 && mask[p - width]) || (y < height - 1 && mask[p + width])) take(p)
    }
  }
  while (length > 0) {
    const p = queue[--length]
    const x = p % width
    const y = (p - x) / width
    for (let dy = -1; dy <= 1; dy++) {
      const ny = y + dy
      if (ny < 0 || ny >= height) continue
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx
        if (nx < 0 || nx >= width) continue
        const q = ny * width + nx
        if (!mask[q] && plainlyNot(q)) take(q)
      }
    }
  }
}

/**
 * Step 2: fills holes (background regions that do not reach the border), unless a hole plainly
 * shows a uniform backdrop (a mug's handle, a ring).
 */
function fillHoles(mask: Uint8Array, rgba: Buffer, width: number, height: number, backdropDistance: number): void {
  const gaps = labelRegions(mask, 0, width, height, false, 255)
  const isHole = (label: number) => label > 0 && !gaps.touchesBorder[label]
  let holes = 0
  for (let label = 1; label <= gaps.count; label++) if (isHole(label)) holes++
  if (holes === 0) return
  const backdrop = backdropColour(rgba, mask, width, height)
  const { offsets, lengths, labels } = gaps.runs
  const sums = new Float64Array((gaps.count + 1) * 3)
  for (let r = 0; r < labels.length; r++) {
    const label = labels[r]
    if (!isHole(label)) continue
    for (let p = offsets[r], end = p + lengths[r]; p < end; p++) {
      sums[label * 3] += rgba[p * 4]
      sums[label * 3 + 1] += rgba[p * 4 + 1]
      sums[label * 3 + 2] += rgba[p * 4 + 2]
    }
  }
  const fill = new Uint8Array(gaps.count + 1)
  for (let label = 1; label <= gaps.count; label++) {
    if (!isHole(label)) continue
    let showsBackdrop = false
    if (backdrop && backdrop.spread < backdropDistance) {
      const n = gaps.areas[label]
      const d = Math.hypot(
        sums[label * 3] / n - backdrop.mean[0],
        sums[label * 3 + 1] / n - backdrop.mean[1],
        sums[label * 3 + 2] / n - backdrop.mean[2],
      )
      showsBackdrop = d < backdropDistance
    }
    fill[label] = showsBackdrop ? 0 : 1
  }
  for (let r = 0; r < labels.length; r++) if (fill[labels[r]]) mask.fill(255, offsets[r], offsets[r] + lengths[r])
}

/** Four bytes at a time, when the buffer is aligned for it (large buffers are; pooled small ones may not be). */
function wordsOf(bytes: Uint8Array): Uint32Array | null {
  return bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2) : null
}

/** One band of a blur: rows top..top+rows of the whole image, found in `data` from byte `offset`. */
export interface BlurredBand {
  top: number
  rows: number
  data: Buffer
  offset: number
}

/** Rows of a blur band by default: bands small enough that a reader of finished rows (the PNG encoder) starts early. */
const BLUR_BAND_ROWS = 512

/**
 * libvips' Gaussian blur of a one-channel image, cut in horizontal bands rendered a core's worth
 * at a time, top first: sharp keeps libvips on one thread per image here, so one band per core
 * lets both share the work. sharp blurs after it extracts, so each band is blurred from its own
 * rows plus a margin wider than the blur's mask (where libvips would repeat the band's edge row),
 * and only its own rows count: the result is the same byte for byte as one blur of the whole. Each
 * band is handed to `use` as it is ready (no copy into one whole image). Bands start on rows whose
 * first pixel is a multiple of 4, and so do their offsets, for readers that work four bytes at a time.
 */
export async function blurInBands(
  image: Uint8Array,
  width: number,
  height: number,
  sigma: number,
  use: (band: BlurredBand) => void,
  bands = Math.max(1, Math.min(Math.floor(height / 256), Math.max(os.availableParallelism(), Math.ceil(height / BLUR_BAND_ROWS)))),
): Promise<void> {
  // libvips' mask stops at about 1.8 sigma (sharp's minimum amplitude 0.2); twice that and more.
  const margin = roundUpTo4(Math.ceil(4 * sigma) + 4)
  const rowsPerBand = roundUpTo4(Math.ceil(height / bands))
  let nextBand = 0
  const blurBands = async () => {
    for (let b = nextBand++; b < bands; b = nextBand++) {
      const top = b * rowsPerBand
      const rows = Math.min(rowsPerBand, height - top)
      if (rows <= 0) return
      const from = Math.max(0, top - margin)
      const to = Math.min(height, top + rows + margin)
      const data = await sharp(image.subarray(from * width, to * width), { raw: { width, height: to - from, channels: 1 } })
        .blur(sigma)
        .toColourspace('b-w')
        .raw()
        .toBuffer()
      use({ top, rows, data, offset: (top - from) * width })
    }
  }
  await Promise.all(Array.from({ length: Math.min(bands, os.availableParallelism()) }, blurBands))
}

const roundUpTo4 = (n: number) => (n + 3) & ~3

/**
 * The edge band's rule for pixels start..end: inside the mask, alpha is at least the blurred mask;
 * outside, at most that. `blurred` holds the blurred mask of pixel `start` at `offset`.
 */
function combineWithBand(soft: Buffer, mask: Uint8Array, blurred: Buffer, offset: number, start: number, end: number): void {
  const shift = offset - start
  let p = start
  const softWords = wordsOf(soft)
  const maskWords = wordsOf(mask)
  const bandWords = wordsOf(blurred)
  if (softWords && maskWords && bandWords && p % 4 === 0 && offset % 4 === 0) {
    // Away from the outline four pixels share one answer: 255 deep inside, 0 far outside.
    // The blur of an all-255 window can come out a little under 255 (251 at sigma 1.7, libvips'
    // integer mask does not sum exactly to its scale), so inside, where the soft matte is already
    // 255, max() keeps it without looking at the band; outside, a soft 0 stays 0 under min().
    const wordShift = shift / 4
    for (let w = p / 4, last = Math.floor(end / 4); w < last; w++) {
      const b = bandWords[w + wordShift]
      const inside = maskWords[w]
      const s = softWords[w]
      if (inside === 0xffffffff && (b === 0xffffffff || s === 0xffffffff)) softWords[w] = 0xffffffff
      else if (inside === 0 && (b === 0 || s === 0)) softWords[w] = 0
      else for (let q = w * 4; q < w * 4 + 4; q++) soft[q] = mask[q] ? Math.max(soft[q], blurred[q + shift]) : Math.min(soft[q], blurred[q + shift])
    }
    p = Math.floor(end / 4) * 4
  }
  for (; p < end; p++) soft[p] = mask[p] ? Math.max(soft[p], blurred[p + shift]) : Math.min(soft[p], blurred[p + shift])
}

/**
 * Refines a soft matte (0..255, already at the image's size) in place and returns it.
 * `rgba` is the image itself, used to tell holes that show the backdrop from holes in the subject.
 * `rowsFinal(upTo)` hears when rows 0..upTo−1 of the matte will not change again (the encoder
 * writes them meanwhile); it may not hear of the last rows: the matte is whole when this returns.
 * `mask`, the matte's threshold if the caller has it already (the upscale writes it), is taken
 * over and changed.
 */
export async function refineMatte(
  soft: Buffer,
  rgba: Buffer,
  width: number,
  height: number,
  options: MatteRefinement,
  {
    rowsFinal = () => {},
    mask: given,
    colours,
  }: {
    rowsFinal?: (upTo: number) => void
    mask?: Uint8Array
    /** RGBA pixels (a copy of `rgba`) whose partly transparent pixels get their foreground colour, with options.foregroundColours. */
    colours?: Buffer
  } = {},
): Promise<Buffer> {
  // The mask: 255 where the soft matte is at or above the threshold, else 0.
  const mask = given ?? new Uint8Array(width * height)
  if (!given) thresholdMatte(soft, mask, 0, mask.length)

  const weighed = sortParts(mask, soft, rgba, width, height, options)
  if (!weighed) return soft
  growOverBackdrop(mask, rgba, width, height, options.backdropDistance)
  fillHoles(mask, rgba, width, height, options.backdropDistance)

  // 3. Edges: a blurred copy of the mask is 255 deep inside, 0 far outside and in between only near
  //    the outline. Inside, alpha is at least that; outside, at most that; so the model's soft
  //    values survive only in that band. Bands finish in any order; rows are final up to the first
  //    band not combined yet.
  //    With an edge step (or a weighed part) to come, no row is final before it has run.
  const edgeSteps =
    !!options.guidedFilter || (!!options.foregroundColours && !!colours) || !!options.edgeSampling || weighed.offsets.length > 0
  const combinedUpTo = new Map<number, number>()
  let finalRows = 0
  await blurInBands(mask, width, height, edgeBlurSigma(options), (band) => {
    combineWithBand(soft, mask, band.data, band.offset, band.top * width, (band.top + band.rows) * width)
    combinedUpTo.set(band.top, band.top + band.rows)
    const before = finalRows
    while (combinedUpTo.has(finalRows)) finalRows = combinedUpTo.get(finalRows)!
    if (finalRows > before && !edgeSteps) rowsFinal(finalRows)
  })
  if (options.guidedFilter) guidedFilterEdges(soft, rgba, width, height, options.guidedFilter)
  if (options.foregroundColours && colours) foregroundColours(soft, rgba, width, height, options.foregroundColours, colours)
  if (options.edgeSampling) await sampleEdges(soft, rgba, width, height, options.edgeSampling, colours)
  // Parts out of focus come back, softened (step 1).
  weighed.alphas.forEach((alphas, i) => {
    const offset = weighed.offsets[i]
    for (let k = 0; k < alphas.length; k++) if (alphas[k] > soft[offset + k]) soft[offset + k] = alphas[k]
  })
  if (edgeSteps) rowsFinal(height)
  return soft
}

const GUIDED_STEPS_PER_RADIUS = 4

/** Step 4: the guided filter, wherever it can change alpha (within 2 radii of a mixed tile). */
function guidedFilterEdges(soft: Buffer, rgba: Buffer, width: number, height: number, { radius, eps }: { radius: number; eps: number }): void {
  const filtered = Buffer.from(soft)
  // The fast guided filter's coarse grid: a quarter of the radius keeps it within a few levels of the exact filter (matte-edges.test.ts).
  const step = Math.max(1, Math.floor(radius / GUIDED_STEPS_PER_RADIUS))
  for (const rect of edgeRects(soft, width, height, 2 * radius)) guidedFilterRect(soft, rgba, width, height, rect, radius, eps, step, filtered)
  filtered.copy(soft)
}

/** Step 5: foreground colours of the partly transparent pixels (only mixed tiles have any). */
function foregroundColours(
  soft: Buffer,
  rgba: Buffer,
  width: number,
  height: number,
  { cellRadius, radius }: { cellRadius: number; radius: number },
  colours: Buffer,
): void {
  const rects = edgeRects(soft, width, height, 0)
  const fields = fusionFields(soft, rgba, width, height, rects, cellRadius, radius)
  for (const rect of rects) foregroundRect(soft, rgba, width, height, rect, fields, radius, colours)
}

/** Side (px) of the tiles sampleEdges plans on (32 read about a tenth less in all than 64 at 12 MP: rects hug the band closer). */
const SAMPLING_TILE = 32
/** From this many pixels on, the image threads sample the edge, rects shared between them. */
const SAMPLING_THREADED_MIN_PIXELS = 2_000_000

/** A view of `bytes` in memory the image threads share (a copy unless it is shared already). */
function sharedBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.length))
  copy.set(bytes)
  return copy
}

/**
 * Step 6: sampling matting in the uncertain band, rect by rect (only rects near a mixed tile can
 * change); on a large image the image threads take the rects, split by area. The result does not
 * depend on the split: every rect reads the matte as it was before this step. `inThreads` overrides
 * the size rule (tests).
 */
export async function sampleEdges(
  soft: Buffer,
  rgba: Buffer,
  width: number,
  height: number,
  sampling: EdgeSampling,
  colours: Buffer | undefined,
  options: { inThreads?: boolean } = {},
): Promise<void> {
  const rects = edgeRects(soft, width, height, sampling.band + 1, SAMPLING_TILE)
  if (rects.length === 0) return
  if (!(options.inThreads ?? width * height >= SAMPLING_THREADED_MIN_PIXELS)) {
    const out = Buffer.from(soft)
    for (const rect of rects) sampleEdgesRect(soft, rgba, width, height, rect, sampling, out, colours)
    out.copy(soft)
    return
  }
  const threads = imageThreads()
  const groups: (typeof rects)[] = Array.from({ length: threads.size }, () => [])
  const areas = new Array<number>(threads.size).fill(0)
  for (const rect of rects) {
    let least = 0
    for (let g = 1; g < groups.length; g++) if (areas[g] < areas[least]) least = g
    groups[least].push(rect)
    areas[least] += (rect.x1 - rect.x0) * (rect.y1 - rect.y0)
  }
  const alpha = sharedBytes(soft)
  const out = new Uint8Array(new SharedArrayBuffer(soft.length))
  out.set(soft)
  // The colours (a copy of the photo) are read as the photo: sampleEdgesRect reads only sure pixels and each pixel's own before writing it.
  const photo = colours ? sharedBytes(colours) : sharedBytes(rgba)
  const sharedColours = colours ? photo : undefined
  await Promise.all(
    groups
      .filter((group) => group.length > 0)
      .map((group) => threads.pick().request({ op: 'sample', alpha, rgba: photo, width, height, rects: group, sampling, out, colours: sharedColours })),
  )
  soft.set(out)
  if (colours && sharedColours !== colours) colours.set(sharedColours!)
}
