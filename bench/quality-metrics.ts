// Matte-quality metrics of a cutout against its exact ground truth (bench/quality.ts and the
// regression test). Alphas are one byte a pixel (0..255); colours RGB, three bytes a pixel.
// The definitions follow the matting literature (Rhemann et al. 2009 for SAD and the gradient
// error; the DAVIS boundary F-measure), scaled so that scenes of different sizes compare.
import { confidentParts } from '../app/features/tools/models/matte.server'

/** A binary mask's pixel is set from this alpha on (the remover's own threshold). */
export const MASK_THRESHOLD = 128

/** IoU of the two binary masks (alpha ≥ 128); 1 when both are empty. */
export function maskIoU(truth: Uint8Array, predicted: Uint8Array): number {
  let inter = 0
  let union = 0
  for (let p = 0; p < truth.length; p++) {
    const t = truth[p] >= MASK_THRESHOLD
    const q = predicted[p] >= MASK_THRESHOLD
    if (t && q) inter++
    if (t || q) union++
  }
  return union === 0 ? 1 : inter / union
}

/** Mean absolute alpha error, alpha as 0..1. */
export function alphaMAE(truth: Uint8Array, predicted: Uint8Array): number {
  return sumOfAbsoluteDifferences(truth, predicted) / truth.length
}

/** Sum of absolute alpha differences (alpha as 0..1), in thousands, as the matting papers report it. */
export function alphaSAD(truth: Uint8Array, predicted: Uint8Array): number {
  return sumOfAbsoluteDifferences(truth, predicted) / 1000
}

function sumOfAbsoluteDifferences(truth: Uint8Array, predicted: Uint8Array): number {
  let sum = 0
  for (let p = 0; p < truth.length; p++) sum += Math.abs(truth[p] - predicted[p])
  return sum / 255
}

/** Sigma of the Gaussian derivative of the gradient error (Rhemann et al.). */
const GRADIENT_SIGMA = 1.4

/**
 * Gradient error: the sum of squared differences of the two alphas' gradient magnitudes (alpha as
 * 0..1, gradients of the Gaussian-smoothed alpha, sigma 1.4), in thousands.
 */
export function gradientError(truth: Uint8Array, predicted: Uint8Array, width: number, height: number): number {
  const a = gradientMagnitude(truth, width, height)
  const b = gradientMagnitude(predicted, width, height)
  let sum = 0
  for (let p = 0; p < a.length; p++) sum += (a[p] - b[p]) ** 2
  return sum / 1000
}

function gradientMagnitude(alpha: Uint8Array, width: number, height: number): Float32Array {
  const smooth = gaussianBlur(alpha, width, height, GRADIENT_SIGMA)
  const out = new Float32Array(width * height)
  const at = (x: number, y: number) => smooth[Math.min(height - 1, Math.max(0, y)) * width + Math.min(width - 1, Math.max(0, x))]
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const gx = (at(x + 1, y) - at(x - 1, y)) / 2
      const gy = (at(x, y + 1) - at(x, y - 1)) / 2
      out[y * width + x] = Math.hypot(gx, gy)
    }
  }
  return out
}

/** Separable Gaussian of a 0..255 image, answered as 0..1, edges repeated. */
function gaussianBlur(image: Uint8Array, width: number, height: number, sigma: number): Float32Array {
  const radius = Math.ceil(3 * sigma)
  const kernel = Array.from({ length: 2 * radius + 1 }, (_, k) => Math.exp(-((k - radius) ** 2) / (2 * sigma * sigma)))
  const total = kernel.reduce((s, v) => s + v, 0)
  const weights = kernel.map((v) => v / total / 255)
  const rows = new Float32Array(width * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0
      for (let k = -radius; k <= radius; k++) s += weights[k + radius] * image[y * width + Math.min(width - 1, Math.max(0, x + k))]
      rows[y * width + x] = s
    }
  }
  const out = new Float32Array(width * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0
      for (let k = -radius; k <= radius; k++) s += weights[k + radius] * 255 * rows[Math.min(height - 1, Math.max(0, y + k)) * width + x]
      out[y * width + x] = s
    }
  }
  return out
}

/**
 * Boundary F-measure (DAVIS): the boundary pixels of each binary mask (set pixels with a clear
 * 4-neighbour inside the image: the frame is no boundary), precision the share of predicted ones within `tolerance` px (chessboard distance) of a true one,
 * recall the reverse, F their harmonic mean. 1 when neither mask has a boundary.
 */
export function boundaryF(truth: Uint8Array, predicted: Uint8Array, width: number, height: number, tolerance: number): number {
  const t = boundaryOf(truth, width, height)
  const q = boundaryOf(predicted, width, height)
  const tCount = count(t)
  const qCount = count(q)
  if (tCount === 0 && qCount === 0) return 1
  if (tCount === 0 || qCount === 0) return 0
  const nearT = chessboardDistance(t, width, height)
  const nearQ = chessboardDistance(q, width, height)
  let matchedQ = 0
  let matchedT = 0
  for (let p = 0; p < t.length; p++) {
    if (q[p] && nearT[p] <= tolerance) matchedQ++
    if (t[p] && nearQ[p] <= tolerance) matchedT++
  }
  const precision = matchedQ / qCount
  const recall = matchedT / tCount
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
}

/** The DAVIS tolerance: 0.8 % of the image's diagonal, at least 1 px. */
export function boundaryTolerance(width: number, height: number): number {
  return Math.max(1, Math.round(0.008 * Math.hypot(width, height)))
}

function count(mask: Uint8Array): number {
  let n = 0
  for (let p = 0; p < mask.length; p++) n += mask[p]
  return n
}

function boundaryOf(alpha: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height)
  const set = (x: number, y: number) => alpha[y * width + x] >= MASK_THRESHOLD
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!set(x, y)) continue
      if ((x > 0 && !set(x - 1, y)) || (x < width - 1 && !set(x + 1, y)) || (y > 0 && !set(x, y - 1)) || (y < height - 1 && !set(x, y + 1))) {
        out[y * width + x] = 1
      }
    }
  }
  return out
}

/** Chessboard distance of every pixel to the nearest set pixel of `mask` (two passes). */
function chessboardDistance(mask: Uint8Array, width: number, height: number): Int32Array {
  const far = width + height
  const d = new Int32Array(width * height)
  for (let p = 0; p < d.length; p++) d[p] = mask[p] ? 0 : far
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x
      let v = d[p]
      if (x > 0) v = Math.min(v, d[p - 1] + 1)
      if (y > 0) {
        v = Math.min(v, d[p - width] + 1)
        if (x > 0) v = Math.min(v, d[p - width - 1] + 1)
        if (x < width - 1) v = Math.min(v, d[p - width + 1] + 1)
      }
      d[p] = v
    }
  }
  for (let y = height - 1; y >= 0; y--) {
    for (let x = width - 1; x >= 0; x--) {
      const p = y * width + x
      let v = d[p]
      if (x < width - 1) v = Math.min(v, d[p + 1] + 1)
      if (y < height - 1) {
        v = Math.min(v, d[p + width] + 1)
        if (x < width - 1) v = Math.min(v, d[p + width + 1] + 1)
        if (x > 0) v = Math.min(v, d[p + width - 1] + 1)
      }
      d[p] = v
    }
  }
  return d
}

/**
 * Colour bleed: the mean absolute error (0..255, over R, G and B) of the cutout's colour against the
 * true foreground colour, over the pixels the truth calls partly transparent (0 < alpha < 255) and
 * the cutout keeps at all (alpha > 0: a pixel cut away shows no colour). NaN when there is none.
 */
export function colourBleed(truthAlpha: Uint8Array, truthRgb: Uint8Array, predictedAlpha: Uint8Array, predictedRgb: Uint8Array): number {
  let sum = 0
  let n = 0
  for (let p = 0; p < truthAlpha.length; p++) {
    const a = truthAlpha[p]
    if (a === 0 || a === 255 || predictedAlpha[p] === 0) continue
    for (let k = 0; k < 3; k++) sum += Math.abs(truthRgb[p * 3 + k] - predictedRgb[p * 3 + k])
    n += 3
  }
  return n === 0 ? Number.NaN : sum / n
}

/**
 * The edge band: pixels within `reach` px (chessboard) of the true edge, that is of a pixel the truth
 * calls partly transparent or whose mask (alpha ≥ 128) differs from a 4-neighbour's. The matting
 * benchmarks score only their trimap's unknown region (Rhemann et al. 2009; Xu et al. 2017); this
 * is that region drawn from the truth, so a refinement of the edge is not drowned by regions the
 * model took or left wholesale (docs/decisions/128).
 */
export function edgeBand(truth: Uint8Array, width: number, height: number, reach: number): Uint8Array {
  const edge = new Uint8Array(width * height)
  const set = (p: number) => truth[p] >= MASK_THRESHOLD
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x
      if ((truth[p] > 0 && truth[p] < 255) || (x > 0 && set(p - 1) !== set(p)) || (y > 0 && set(p - width) !== set(p))) edge[p] = 1
      // A mask change between p and its left or upper neighbour marks both sides.
      if (x > 0 && set(p - 1) !== set(p)) edge[p - 1] = 1
      if (y > 0 && set(p - width) !== set(p)) edge[p - width] = 1
    }
  }
  const near = chessboardDistance(edge, width, height)
  const band = new Uint8Array(width * height)
  for (let p = 0; p < band.length; p++) if (near[p] <= reach) band[p] = 1
  return band
}

/** Alpha MAE (0..1) and SAD (thousands) over the edge band alone; NaN without any edge. */
export function edgeBandErrors(truth: Uint8Array, predicted: Uint8Array, width: number, height: number): { mae: number; sad: number } {
  const band = edgeBand(truth, width, height, boundaryTolerance(width, height))
  let sum = 0
  let n = 0
  for (let p = 0; p < band.length; p++) {
    if (!band[p]) continue
    sum += Math.abs(truth[p] - predicted[p])
    n++
  }
  return n === 0 ? { mae: Number.NaN, sad: Number.NaN } : { mae: sum / 255 / n, sad: sum / 255 / 1000 }
}

/**
 * Part recall (issue 32): of each part `reference` holds with real confidence (confidentParts: alpha
 * ≥ 0.3, connected, over ≥ 0.1 % of the image), the share of its pixels the cutout keeps at alpha ≥ 0.5,
 * averaged over the parts (a small part lost weighs as much as a large one). A part's pixels are those
 * the reference holds at ≥ 0.5, so a cutout that keeps the reference's own outline scores 1 (its soft
 * rim at 0.3-0.5 is no loss); a part held only at 0.3-0.5 (a thin antenna the model half sees) counts
 * all of its pixels. NaN when the reference holds no part.
 */
export function partRecall(reference: Uint8Array, cutout: Uint8Array, width: number, height: number): number {
  const { parts, confident } = confidentParts(reference, width, height)
  const solid = new Float64Array(parts.count + 1)
  const solidKept = new Float64Array(parts.count + 1)
  const kept = new Float64Array(parts.count + 1)
  const { offsets, lengths, labels } = parts.runs
  for (let r = 0; r < labels.length; r++) {
    const label = labels[r]
    if (!confident[label]) continue
    for (let p = offsets[r], end = p + lengths[r]; p < end; p++) {
      const keeps = cutout[p] >= MASK_THRESHOLD ? 1 : 0
      kept[label] += keeps
      if (reference[p] >= MASK_THRESHOLD) {
        solid[label]++
        solidKept[label] += keeps
      }
    }
  }
  let sum = 0
  let n = 0
  for (let label = 1; label <= parts.count; label++) {
    if (!confident[label]) continue
    sum += solid[label] > 0 ? solidKept[label] / solid[label] : kept[label] / parts.areas[label]
    n++
  }
  return n === 0 ? Number.NaN : sum / n
}

/** Parts narrower than this (px) are thin (thinPixels). */
export const THIN_WIDTH = 8

/**
 * The thin pixels of a matte: those at alpha ≥ 0.5 that no THIN_WIDTH × THIN_WIDTH square lying wholly
 * at ≥ 0.5 covers (the mask less its opening by that square). They are the pixels of strokes, wires and
 * antennas narrower than 8 px, every one of them within 3 px of the stroke's skeleton; a wide part's
 * outline, straight or slanted, is covered by a square inside it.
 */
export function thinPixels(alpha: Uint8Array, width: number, height: number): Uint8Array {
  const k = THIN_WIDTH
  const stride = width + 1
  // Summed-area table of the mask, then of the squares' top-left corners that lie wholly inside it.
  const sums = new Int32Array(stride * (height + 1))
  for (let y = 0; y < height; y++) {
    let row = 0
    for (let x = 0; x < width; x++) {
      row += alpha[y * width + x] >= MASK_THRESHOLD ? 1 : 0
      sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + row
    }
  }
  const boxSum = (table: Int32Array, x0: number, y0: number, x1: number, y1: number) =>
    table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
  const corners = new Int32Array(stride * (height + 1))
  for (let y = 0; y < height; y++) {
    let row = 0
    for (let x = 0; x < width; x++) {
      if (x + k <= width && y + k <= height && boxSum(sums, x, y, x + k, y + k) === k * k) row++
      corners[(y + 1) * stride + x + 1] = corners[y * stride + x + 1] + row
    }
  }
  const thin = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (alpha[y * width + x] < MASK_THRESHOLD) continue
      // Squares that cover (x, y) have their corner within k − 1 px above and to the left.
      const covered = boxSum(corners, Math.max(0, x - k + 1), Math.max(0, y - k + 1), x + 1, y + 1) > 0
      if (!covered) thin[y * width + x] = 1
    }
  }
  return thin
}

/** Thin-part recall (issue 32): the share of the truth's thin pixels (thinPixels) the cutout keeps at alpha ≥ 0.5; NaN without any. */
export function thinPartRecall(truth: Uint8Array, cutout: Uint8Array, width: number, height: number): number {
  const thin = thinPixels(truth, width, height)
  let n = 0
  let kept = 0
  for (let p = 0; p < thin.length; p++) {
    if (!thin[p]) continue
    n++
    if (cutout[p] >= MASK_THRESHOLD) kept++
  }
  return n === 0 ? Number.NaN : kept / n
}

export interface MatteScores {
  iou: number
  mae: number
  sad: number
  /** MAE and SAD within boundaryTolerance px of the true edge (edgeBand). */
  edgeMae: number
  edgeSad: number
  gradient: number
  boundaryF: number
  colourBleed: number
  /** partRecall of the model's own matte (NaN when the scorer is not given it), of the truth, and thinPartRecall. */
  modelPartRecall: number
  truthPartRecall: number
  thinPartRecall: number
}

/** Every metric of one cutout; `modelAlpha`, the model's own matte at the cutout's size, for the model-part recall. */
export function scoreCutout(
  truth: { alpha: Uint8Array; rgb: Uint8Array },
  predicted: { alpha: Uint8Array; rgb: Uint8Array },
  width: number,
  height: number,
  modelAlpha?: Uint8Array,
): MatteScores {
  const edge = edgeBandErrors(truth.alpha, predicted.alpha, width, height)
  return {
    iou: maskIoU(truth.alpha, predicted.alpha),
    mae: alphaMAE(truth.alpha, predicted.alpha),
    sad: alphaSAD(truth.alpha, predicted.alpha),
    edgeMae: edge.mae,
    edgeSad: edge.sad,
    gradient: gradientError(truth.alpha, predicted.alpha, width, height),
    boundaryF: boundaryF(truth.alpha, predicted.alpha, width, height, boundaryTolerance(width, height)),
    colourBleed: colourBleed(truth.alpha, truth.rgb, predicted.alpha, predicted.rgb),
    modelPartRecall: modelAlpha ? partRecall(modelAlpha, predicted.alpha, width, height) : Number.NaN,
    truthPartRecall: partRecall(truth.alpha, predicted.alpha, width, height),
    thinPartRecall: thinPartRecall(truth.alpha, predicted.alpha, width, height),
  }
}
