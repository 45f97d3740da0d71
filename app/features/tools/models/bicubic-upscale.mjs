// The cubic enlargement of a one-channel 8-bit image, computed here byte for byte as sharp computes
// `resize(width, height, { fit: 'fill', kernel: 'cubic' })` when neither axis shrinks.
//
// Why not libvips itself: its affine transform spends about 30 ns a pixel on one core (380 ms of
// CPU for a 12 MP matte) and each region request costs about 3 ms of set-up, so the remover's
// upscale near the outline alone took 100-150 ms of a 12 MP run. The same arithmetic here is
// separable (each source row is interpolated across once, then every output pixel is four
// multiply-adds down), a few milliseconds for the parts the remover needs. docs/decisions/068.
//
// What libvips 8.18 does for such a resize (resize.c → affine.c with the "bicubic" interpolator,
// bicubic.cpp and templates.h), and what is repeated here exactly:
// - sharp asks for scale 1 / (inSize / outSize); vips_affine inverts the matrix through its
//   determinant, so a step is (1 / (h·v))·v, not 1 / h: both are kept as libvips computes them.
// - Input displacement 0.5 (libvips 8.18; 8.19 scales it), minus 1 for the border libvips adds,
//   plus the interpolator's window offset (1). Along a row the source position is accumulated
//   (x += step) from the row's left edge; the whole-image render starts every row at 0.
// - The fractional position is rounded to 1/64 px (VIPS_TRANSFORM_SCALE); Catmull-Rom weights for
//   each of the 65 positions are computed in double and truncated to 12-bit fixed point.
// - Each of the 4 rows is interpolated across and rounded ((sum + 2048) >> 12), then the 4 results
//   down, rounded the same way and clipped to 0..255. Outside the image the edge pixel repeats.
// Plain JavaScript: the remover's image threads run it too (docs/decisions/077).

/**
 * @typedef {object} OneChannelImage
 * @property {Uint8Array} data
 * @property {number} width
 * @property {number} height
 * @property {number} channels
 */

/** Sub-pixel positions per pixel (VIPS_TRANSFORM_SCALE). */
const POSITIONS = 64
/** Output columns of an interpolated source row computed together (the upscaler computes rows lazily). */
const ACROSS_PIECE = 64
/** Fixed-point precision of the weights (VIPS_INTERPOLATE_SHIFT). */
const WEIGHT_SHIFT = 12
const WEIGHT_ROUND = 1 << (WEIGHT_SHIFT - 1)
/**
 * resize.c's input displacement for every kernel but nearest, in libvips 8.18 (sharp 0.35). libvips
 * 8.19 changes it to 0.5·(1 − 1/scale): the test against sharp fails when sharp moves to it.
 */
const INPUT_DISPLACEMENT = 0.5
/** Pixels libvips adds around the input: the window offset (1) and one more. */
const BORDER = 2
/** The interpolator's window offset (window size 4, offset (4 − 1) / 2). */
const WINDOW_OFFSET = 1

/** Catmull-Rom weights of the 65 sub-pixel positions, in 12-bit fixed point, four per position. */
const WEIGHTS = (() => {
  const table = new Int32Array((POSITIONS + 1) * 4)
  for (let k = 0; k <= POSITIONS; k++) {
    // The same operations in the same order as libvips, so every double is the same.
    const x = k / POSITIONS
    const cr1 = 1 - x
    const cr2 = -0.5 * x
    const cr3 = cr1 * cr2
    const cone = cr1 * cr3
    const cfou = x * cr3
    const cr4 = cfou - cone
    const ctwo = cr1 - cone + cr4
    const cthr = x - cfou - cr4
    const scale = 1 << WEIGHT_SHIFT
    table[k * 4] = Math.trunc(cone * scale)
    table[k * 4 + 1] = Math.trunc(ctwo * scale)
    table[k * 4 + 2] = Math.trunc(cthr * scale)
    table[k * 4 + 3] = Math.trunc(cfou * scale)
  }
  return table
})()

/**
 * For each output coordinate along one axis: its first source pixel (of 4, edge-clamped) and weight row.
 * @typedef {object} AxisTaps
 * @property {Int32Array} first
 * @property {Uint8Array} position Index into WEIGHTS / 4.
 * @property {Uint8Array} inside 0 where the output falls outside the source (libvips paints 0 there; never for an enlargement).
 */

/**
 * Source taps of every output coordinate along an axis. `step` and `displacement` are libvips'
 * inverse scale and input displacement; `accumulate` follows libvips along a row (x += step),
 * otherwise each position is computed directly (rows: y · step).
 * @param {number} outSize
 * @param {number} inSize
 * @param {number} step
 * @param {number} displacement
 * @param {boolean} accumulate
 * @returns {AxisTaps}
 */
function axisTaps(outSize, inSize, step, displacement, accumulate) {
  const first = new Int32Array(outSize)
  const position = new Uint8Array(outSize)
  const inside = new Uint8Array(outSize)
  // (0 · step) + (−0) as libvips writes it is 0; then the displacement and the window offset.
  let running = step * 0 - displacement + WINDOW_OFFSET
  for (let o = 0; o < outSize; o++) {
    const at = accumulate ? running : step * o - displacement + WINDOW_OFFSET
    const whole = Math.floor(at)
    inside[o] = whole >= WINDOW_OFFSET && whole <= WINDOW_OFFSET + inSize ? 1 : 0
    // Rounded to the nearest 1/64: double the resolution, add one, halve (bicubic.cpp).
    const doubled = Math.trunc(at * POSITIONS * 2)
    position[o] = ((doubled & (POSITIONS * 2 - 1)) + 1) >> 1
    // The 4×4 window starts one pixel before the truncated position, in the bordered image.
    first[o] = Math.trunc(at) - 1 - BORDER
    running += step
  }
  return { first, position, inside }
}

/** @typedef {{ first: number, last: number }} SourceSpan Source pixels (first and last, inclusive) along one axis. */

/**
 * @typedef {object} BicubicUpscaler
 * @property {(from: number, to: number) => SourceSpan} sourceColumns The source columns that output columns from..to−1 read.
 * @property {(from: number, to: number) => SourceSpan} sourceRows The source rows that output rows from..to−1 read.
 * @property {(left: number, top: number, cols: number, rows: number, out: Uint8Array, offset: number, stride: number) => void} region
 *   Writes output rows top..top+rows, columns left..left+cols, into `out` (row stride `stride`, starting at `offset`).
 */

/** Whether this enlargement is one the upscaler computes (neither axis shrinks). */
/**
 * @param {OneChannelImage} source
 * @param {number} width
 * @param {number} height
 */
export function bicubicApplies(source, width, height) {
  return source.channels === 1 && width >= source.width && height >= source.height
}

/**
 * An upscaler of `source` (one channel) to width × height, equal to sharp's cubic resize. Source
 * rows interpolated across are computed once, a piece at a time on first use, and kept.
 * @param {OneChannelImage} source
 * @param {number} width
 * @param {number} height
 * @returns {BicubicUpscaler}
 */
export function bicubicUpscaler(source, width, height) {
  if (!bicubicApplies(source, width, height)) throw new Error('bicubicUpscaler enlarges one-channel images only')
  const { data, width: inWidth, height: inHeight } = source
  // sharp: scale = 1 / (in / out); libvips: inverse through the determinant (b = c = 0).
  const hscale = 1 / (inWidth / width)
  const vscale = 1 / (inHeight / height)
  const reciprocal = 1 / (hscale * vscale - 0 * 0)
  const stepX = reciprocal * vscale
  const stepY = reciprocal * hscale
  // resize.c's input displacement (0.5 in libvips 8.18), then affine.c's −1 for the border it adds.
  const displaceX = INPUT_DISPLACEMENT - 1
  const displaceY = INPUT_DISPLACEMENT - 1
  const columns = axisTaps(width, inWidth, stepX, displaceX, true)
  const rowTaps = axisTaps(height, inHeight, stepY, displaceY, false)
  const allColumnsInside = columns.inside.every((inside) => inside === 1)
  const clampX = (/** @type {number} */ x) => (x < 0 ? 0 : x >= inWidth ? inWidth - 1 : x)
  const clampY = (/** @type {number} */ y) => (y < 0 ? 0 : y >= inHeight ? inHeight - 1 : y)

  // Source row y interpolated across to the output columns, rounded as libvips rounds it: computed
  // a piece of ACROSS_PIECE columns at a time, on first use (the remover reads about a tenth of them).
  const pieces = Math.ceil(width / ACROSS_PIECE)
  const across = /** @type {(Int32Array | undefined)[]} */ (new Array(inHeight))
  const computed = /** @type {(Uint8Array | undefined)[]} */ (new Array(inHeight))
  /** @type {(y: number, left: number, right: number) => Int32Array} */
  const rowAcross = (y, left, right) => {
    let values = across[y]
    let done = computed[y]
    if (!values || !done) {
      values = across[y] = new Int32Array(width)
      done = computed[y] = new Uint8Array(pieces)
    }
    const base = y * inWidth
    for (let piece = Math.floor(left / ACROSS_PIECE), lastPiece = Math.floor((right - 1) / ACROSS_PIECE); piece <= lastPiece; piece++) {
      if (done[piece]) continue
      done[piece] = 1
      for (let x = piece * ACROSS_PIECE, end = Math.min(width, x + ACROSS_PIECE); x < end; x++) {
        const f = columns.first[x]
        const w = columns.position[x] * 4
        const sum =
          f >= 0 && f + 3 < inWidth
            ? WEIGHTS[w] * data[base + f] + WEIGHTS[w + 1] * data[base + f + 1] + WEIGHTS[w + 2] * data[base + f + 2] + WEIGHTS[w + 3] * data[base + f + 3]
            : WEIGHTS[w] * data[base + clampX(f)] +
              WEIGHTS[w + 1] * data[base + clampX(f + 1)] +
              WEIGHTS[w + 2] * data[base + clampX(f + 2)] +
              WEIGHTS[w + 3] * data[base + clampX(f + 3)]
        values[x] = (sum + WEIGHT_ROUND) >> WEIGHT_SHIFT
      }
    }
    return values
  }

  // Taps only move forward along an axis: the first output's first tap and the last one's fourth.
  /** @type {(taps: AxisTaps, clamp: (v: number) => number, from: number, to: number) => SourceSpan} */
  const span = (taps, clamp, from, to) => ({
    first: clamp(taps.first[from]),
    last: clamp(taps.first[to - 1] + 3),
  })
  return {
    sourceColumns: (from, to) => span(columns, clampX, from, to),
    sourceRows: (from, to) => span(rowTaps, clampY, from, to),
    region(left, top, cols, rows, out, offset, stride) {
      for (let r = 0; r < rows; r++) {
        const y = top + r
        const at = offset + r * stride
        if (!rowTaps.inside[y]) {
          out.fill(0, at, at + cols)
          continue
        }
        const f = rowTaps.first[y]
        const w = rowTaps.position[y] * 4
        const w0 = WEIGHTS[w]
        const w1 = WEIGHTS[w + 1]
        const w2 = WEIGHTS[w + 2]
        const w3 = WEIGHTS[w + 3]
        const r0 = rowAcross(clampY(f), left, left + cols)
        const r1 = rowAcross(clampY(f + 1), left, left + cols)
        const r2 = rowAcross(clampY(f + 2), left, left + cols)
        const r3 = rowAcross(clampY(f + 3), left, left + cols)
        for (let x = left, o = at, end = left + cols; x < end; x++, o++) {
          // Math.imul keeps the products in 32-bit integers (they cannot overflow: |weight| < 2^13, |value| < 2^10).
          const value =
            (Math.imul(w0, r0[x]) + Math.imul(w1, r1[x]) + Math.imul(w2, r2[x]) + Math.imul(w3, r3[x]) + WEIGHT_ROUND) >> WEIGHT_SHIFT
          // Clipped to 0..255: a value outside has bits above the lowest 8; its sign says which end.
          out[o] = value & ~255 ? (~value >>> 31) * 255 : value
        }
        if (!allColumnsInside) for (let x = left, o = at; x < left + cols; x++, o++) if (!columns.inside[x]) out[o] = 0
      }
    },
  }
}
