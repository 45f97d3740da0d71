// Edge refinement of the remover's matte at full resolution (docs/decisions/090): a guided filter
// that pulls the soft edge onto the photo's own edges, and foreground colours for the partly
// transparent pixels (blur-fusion, Forte & Pitié 2021) so they stop carrying the old background.
// Both work only near the outline, on rectangles of tiles (edgeRects): away from it alpha is 0 or
// 255 and neither step changes anything. Plain JavaScript, so the image threads can run it too.

/** Side of the square tiles the work is planned on. */
export const EDGE_TILE = 32

/**
 * @typedef {{ x0: number, y0: number, x1: number, y1: number }} Rect  pixels x0..x1−1, y0..y1−1
 */

/**
 * The rectangles (runs of tiles along a tile row) within `reach` px of a tile where alpha is not
 * all one value: the only places the refinement can change.
 * @param {Uint8Array} alpha
 * @param {number} width
 * @param {number} height
 * @param {number} reach
 * @param {number} [tile] the tiles' side (px)
 * @returns {Rect[]}
 */
export function edgeRects(alpha, width, height, reach, tile = EDGE_TILE) {
  const tilesX = Math.ceil(width / tile)
  const tilesY = Math.ceil(height / tile)
  const mixed = new Uint8Array(tilesX * tilesY)
  for (let ty = 0; ty < tilesY; ty++) {
    const y1 = Math.min(height, (ty + 1) * tile)
    for (let tx = 0; tx < tilesX; tx++) {
      const x0 = tx * tile
      const x1 = Math.min(width, x0 + tile)
      const first = alpha[ty * tile * width + x0]
      let varies = first !== 0 && first !== 255
      for (let y = ty * tile; y < y1 && !varies; y++) {
        for (let p = y * width + x0, end = y * width + x1; p < end; p++) {
          if (alpha[p] !== first) {
            varies = true
            break
          }
        }
      }
      mixed[ty * tilesX + tx] = varies ? 1 : 0
    }
  }
  const ring = Math.ceil(reach / tile)
  const needed = new Uint8Array(tilesX * tilesY)
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      if (!mixed[ty * tilesX + tx]) continue
      for (let ny = Math.max(0, ty - ring); ny <= Math.min(tilesY - 1, ty + ring); ny++) {
        needed.fill(1, ny * tilesX + Math.max(0, tx - ring), ny * tilesX + Math.min(tilesX - 1, tx + ring) + 1)
      }
    }
  }
  /** @type {Rect[]} */
  const rects = []
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; ) {
      if (!needed[ty * tilesX + tx]) {
        tx++
        continue
      }
      const first = tx
      while (tx < tilesX && needed[ty * tilesX + tx]) tx++
      rects.push({ x0: first * tile, y0: ty * tile, x1: Math.min(width, tx * tile), y1: Math.min(height, (ty + 1) * tile) })
    }
  }
  return rects
}

/**
 * Summed-area table of a w × h grid of values ((w+1)·(h+1) entries, a zero row and column first).
 * @param {Float64Array} values @param {number} w @param {number} h
 */
function summedArea(values, w, h) {
  const table = new Float64Array((w + 1) * (h + 1))
  for (let y = 0; y < h; y++) {
    let row = 0
    for (let x = 0; x < w; x++) {
      row += values[y * w + x]
      table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
    }
  }
  return table
}

/**
 * A summed-area table's sum over columns left..right−1, rows top..bottom−1 of its grid (w wide).
 * @param {Float64Array} table @param {number} w @param {number} left @param {number} top @param {number} right @param {number} bottom
 */
function boxSum(table, w, left, top, right, bottom) {
  const stride = w + 1
  return table[bottom * stride + right] - table[top * stride + right] - table[bottom * stride + left] + table[top * stride + left]
}

/**
 * The mean over the box of radius r around cell (x, y) of a w × h grid's summed-area table, the box
 * clipped to the grid.
 * @param {Float64Array} table @param {number} w @param {number} h @param {number} x @param {number} y @param {number} r
 */
function boxMean(table, w, h, x, y, r) {
  const left = Math.max(0, x - r)
  const right = Math.min(w, x + r + 1)
  const top = Math.max(0, y - r)
  const bottom = Math.min(h, y + r + 1)
  return boxSum(table, w, left, top, right, bottom) / ((right - left) * (bottom - top))
}

/**
 * He, Sun and Tang's guided filter (2010) of `alpha` with the photo's luma as guide, in its fast
 * form (He and Sun 2015): the coefficients are computed on a grid `step` times coarser (box
 * filters over summed-area tables: O(1) a pixel) and interpolated back, so a 12 MP photo costs no
 * more than a 1 MP one; only the last step, alpha = A·I + B, is done at every pixel of `rect`.
 * Reads the photo and alpha up to 2r px around the rect; writes `out` for the rect's pixels.
 * @param {Uint8Array} alpha the matte (0..255), read only
 * @param {Uint8Array} rgba the photo
 * @param {number} width @param {number} height
 * @param {Rect} rect
 * @param {number} r the boxes' radius (px)
 * @param {number} eps regularisation: larger keeps the matte smoother, smaller follows the photo more
 * @param {number} step the coarse grid's cell (px), 1 for the exact filter
 * @param {Uint8Array} out
 */
export function guidedFilterRect(alpha, rgba, width, height, rect, r, eps, step, out) {
  // The coarse grid covers the window the boxes read, its cells aligned on the image's.
  const gx0 = Math.floor(Math.max(0, rect.x0 - 2 * r) / step)
  const gy0 = Math.floor(Math.max(0, rect.y0 - 2 * r) / step)
  const gx1 = Math.ceil(Math.min(width, rect.x1 + 2 * r) / step)
  const gy1 = Math.ceil(Math.min(height, rect.y1 + 2 * r) / step)
  const gw = gx1 - gx0
  const gh = gy1 - gy0
  const meanI = new Float64Array(gw * gh)
  const meanP = new Float64Array(gw * gh)
  const meanII = new Float64Array(gw * gh)
  const meanIP = new Float64Array(gw * gh)
  for (let cy = 0; cy < gh; cy++) {
    const y0 = (gy0 + cy) * step
    const y1 = Math.min(height, y0 + step)
    for (let cx = 0; cx < gw; cx++) {
      const x0 = (gx0 + cx) * step
      const x1 = Math.min(width, x0 + step)
      let sI = 0
      let sP = 0
      let sII = 0
      let sIP = 0
      for (let y = y0; y < y1; y++) {
        for (let p = y * width + x0, end = y * width + x1; p < end; p++) {
          const i = (0.299 * rgba[p * 4] + 0.587 * rgba[p * 4 + 1] + 0.114 * rgba[p * 4 + 2]) / 255
          const v = alpha[p] / 255
          sI += i
          sP += v
          sII += i * i
          sIP += i * v
        }
      }
      const n = (x1 - x0) * (y1 - y0)
      const c = cy * gw + cx
      meanI[c] = sI / n
      meanP[c] = sP / n
      meanII[c] = sII / n
      meanIP[c] = sIP / n
    }
  }
  const rc = Math.max(1, Math.round(r / step))
  const tI = summedArea(meanI, gw, gh)
  const tP = summedArea(meanP, gw, gh)
  const tII = summedArea(meanII, gw, gh)
  const tIP = summedArea(meanIP, gw, gh)
  const a = meanII
  const b = meanIP
  for (let cy = 0; cy < gh; cy++) {
    for (let cx = 0; cx < gw; cx++) {
      const mI = boxMean(tI, gw, gh, cx, cy, rc)
      const mP = boxMean(tP, gw, gh, cx, cy, rc)
      const variance = boxMean(tII, gw, gh, cx, cy, rc) - mI * mI
      const covariance = boxMean(tIP, gw, gh, cx, cy, rc) - mI * mP
      const c = cy * gw + cx
      a[c] = covariance / (variance + eps)
      b[c] = mP - a[c] * mI
    }
  }
  const tA = summedArea(a, gw, gh)
  const tB = summedArea(b, gw, gh)
  const meanA = meanI
  const meanB = meanP
  for (let cy = 0; cy < gh; cy++) {
    for (let cx = 0; cx < gw; cx++) {
      meanA[cy * gw + cx] = boxMean(tA, gw, gh, cx, cy, rc)
      meanB[cy * gw + cx] = boxMean(tB, gw, gh, cx, cy, rc)
    }
  }
  // Back at full resolution: the coefficients between cell centres, bilinear.
  for (let y = rect.y0; y < rect.y1; y++) {
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / step - 0.5 - gy0))
    const cy0 = Math.floor(fy)
    const cy1 = Math.min(gh - 1, cy0 + 1)
    const ty = fy - cy0
    for (let x = rect.x0; x < rect.x1; x++) {
      const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / step - 0.5 - gx0))
      const cx0 = Math.floor(fx)
      const cx1 = Math.min(gw - 1, cx0 + 1)
      const tx = fx - cx0
      const k00 = cy0 * gw + cx0
      const k01 = cy0 * gw + cx1
      const k10 = cy1 * gw + cx0
      const k11 = cy1 * gw + cx1
      const w00 = (1 - tx) * (1 - ty)
      const w01 = tx * (1 - ty)
      const w10 = (1 - tx) * ty
      const w11 = tx * ty
      const A = meanA[k00] * w00 + meanA[k01] * w01 + meanA[k10] * w10 + meanA[k11] * w11
      const B = meanB[k00] * w00 + meanB[k01] * w01 + meanB[k10] * w10 + meanB[k11] * w11
      const p = y * width + x
      const q = A * ((0.299 * rgba[p * 4] + 0.587 * rgba[p * 4 + 1] + 0.114 * rgba[p * 4 + 2]) / 255) + B
      out[p] = q <= 0 ? 0 : q >= 1 ? 255 : Math.round(q * 255)
    }
  }
}

/** Side (px) of the cells blur-fusion's first, wide pass works on. */
export const FUSION_CELL = 8

/**
 * @typedef {object} FusionFields  blur-fusion's first pass: per cell, the wide average of the
 *   foreground's colour (weighted by alpha) and of the background's (weighted by 1 − alpha), 0..1
 * @property {number} cellsX
 * @property {number} cellsY
 * @property {Float32Array} foreground three values a cell
 * @property {Float32Array} background
 */

/** Keeps a ratio finite where its weights are all zero (the paper's 1e-5). */
const TINY = 1e-5

/**
 * Blur-fusion's first pass (Forte & Pitié 2021, their radius 90 px) on a grid of FUSION_CELL-px
 * cells: box averages over (2·cellRadius + 1)² cells, computed only for the cells `rects` (and the
 * second pass's margin) read.
 * @param {Uint8Array} alpha @param {Uint8Array} rgba @param {number} width @param {number} height
 * @param {Rect[]} rects @param {number} cellRadius @param {number} margin the second pass's radius (px)
 * @returns {FusionFields}
 */
export function fusionFields(alpha, rgba, width, height, rects, cellRadius, margin) {
  const cellsX = Math.ceil(width / FUSION_CELL)
  const cellsY = Math.ceil(height / FUSION_CELL)
  // Cells sampled (bilinearly, so one more around) and cells summed (cellRadius more again).
  const sampled = new Uint8Array(cellsX * cellsY)
  for (const rect of rects) {
    const cx0 = Math.max(0, Math.floor((rect.x0 - margin) / FUSION_CELL) - 1)
    const cx1 = Math.min(cellsX - 1, Math.floor((rect.x1 - 1 + margin) / FUSION_CELL) + 1)
    for (let cy = Math.max(0, Math.floor((rect.y0 - margin) / FUSION_CELL) - 1); cy <= Math.min(cellsY - 1, Math.floor((rect.y1 - 1 + margin) / FUSION_CELL) + 1); cy++) {
      sampled.fill(1, cy * cellsX + cx0, cy * cellsX + cx1 + 1)
    }
  }
  const summed = new Uint8Array(cellsX * cellsY)
  for (let cy = 0; cy < cellsY; cy++) {
    for (let cx = 0; cx < cellsX; cx++) {
      if (!sampled[cy * cellsX + cx]) continue
      for (let ny = Math.max(0, cy - cellRadius); ny <= Math.min(cellsY - 1, cy + cellRadius); ny++) {
        summed.fill(1, ny * cellsX + Math.max(0, cx - cellRadius), ny * cellsX + Math.min(cellsX - 1, cx + cellRadius) + 1)
      }
    }
  }
  // Per cell: Σ I·α (3), Σ α, Σ I·(1 − α) (3), Σ (1 − α).
  const sums = new Float64Array(cellsX * cellsY * 8)
  for (let cy = 0; cy < cellsY; cy++) {
    for (let cx = 0; cx < cellsX; cx++) {
      const c = cy * cellsX + cx
      if (!summed[c]) continue
      const s = c * 8
      for (let y = cy * FUSION_CELL, y1 = Math.min(height, y + FUSION_CELL); y < y1; y++) {
        for (let p = y * width + cx * FUSION_CELL, end = y * width + Math.min(width, (cx + 1) * FUSION_CELL); p < end; p++) {
          const a = alpha[p] / 255
          const r = rgba[p * 4] / 255
          const g = rgba[p * 4 + 1] / 255
          const b = rgba[p * 4 + 2] / 255
          sums[s] += r * a
          sums[s + 1] += g * a
          sums[s + 2] += b * a
          sums[s + 3] += a
          sums[s + 4] += r * (1 - a)
          sums[s + 5] += g * (1 - a)
          sums[s + 6] += b * (1 - a)
          sums[s + 7] += 1 - a
        }
      }
    }
  }
  const tables = Array.from({ length: 8 }, (_, k) => {
    const channel = new Float64Array(cellsX * cellsY)
    for (let c = 0; c < channel.length; c++) channel[c] = sums[c * 8 + k]
    return summedArea(channel, cellsX, cellsY)
  })
  const foreground = new Float32Array(cellsX * cellsY * 3)
  const background = new Float32Array(cellsX * cellsY * 3)
  for (let cy = 0; cy < cellsY; cy++) {
    const top = Math.max(0, cy - cellRadius)
    const bottom = Math.min(cellsY, cy + cellRadius + 1)
    for (let cx = 0; cx < cellsX; cx++) {
      const c = cy * cellsX + cx
      if (!sampled[c]) continue
      const left = Math.max(0, cx - cellRadius)
      const right = Math.min(cellsX, cx + cellRadius + 1)
      const weightF = boxSum(tables[3], cellsX, left, top, right, bottom) + TINY
      const weightB = boxSum(tables[7], cellsX, left, top, right, bottom) + TINY
      for (let k = 0; k < 3; k++) {
        foreground[c * 3 + k] = boxSum(tables[k], cellsX, left, top, right, bottom) / weightF
        background[c * 3 + k] = boxSum(tables[4 + k], cellsX, left, top, right, bottom) / weightB
      }
    }
  }
  return { cellsX, cellsY, foreground, background }
}

/**
 * A field's value at pixel (x, y), bilinear between cell centres, into `into` (3 values).
 * @param {Float32Array} field @param {FusionFields} fields @param {number} x @param {number} y @param {Float64Array} into
 */
function sampleField(field, fields, x, y, into) {
  const fx = Math.min(fields.cellsX - 1, Math.max(0, (x + 0.5) / FUSION_CELL - 0.5))
  const fy = Math.min(fields.cellsY - 1, Math.max(0, (y + 0.5) / FUSION_CELL - 0.5))
  const x0 = Math.floor(fx)
  const y0 = Math.floor(fy)
  const x1 = Math.min(fields.cellsX - 1, x0 + 1)
  const y1 = Math.min(fields.cellsY - 1, y0 + 1)
  const tx = fx - x0
  const ty = fy - y0
  for (let k = 0; k < 3; k++) {
    const top = field[(y0 * fields.cellsX + x0) * 3 + k] * (1 - tx) + field[(y0 * fields.cellsX + x1) * 3 + k] * tx
    const bottom = field[(y1 * fields.cellsX + x0) * 3 + k] * (1 - tx) + field[(y1 * fields.cellsX + x1) * 3 + k] * tx
    into[k] = top * (1 - ty) + bottom * ty
  }
}

/**
 * Blur-fusion's second, narrow pass (radius r px) for the partly transparent pixels of `rect`: each
 * gets the colour F = F̄ + α·(I − α·F̄ − (1 − α)·B̄), F̄ and B̄ the local averages of the first pass's
 * foreground and background, written into `out` (RGBA; alpha and every other pixel untouched).
 * @param {Uint8Array} alpha @param {Uint8Array} rgba @param {number} width @param {number} height
 * @param {Rect} rect @param {FusionFields} fields @param {number} r @param {Uint8Array} out
 */
export function foregroundRect(alpha, rgba, width, height, rect, fields, r, out) {
  const wx0 = Math.max(0, rect.x0 - r)
  const wy0 = Math.max(0, rect.y0 - r)
  const wx1 = Math.min(width, rect.x1 + r)
  const wy1 = Math.min(height, rect.y1 + r)
  const w = wx1 - wx0
  const size = w * (wy1 - wy0)
  // Per window pixel: the first pass's F·α (3), α, B·(1 − α) (3), 1 − α.
  const terms = Array.from({ length: 8 }, () => new Float64Array(size))
  const f = new Float64Array(3)
  const b = new Float64Array(3)
  for (let y = wy0; y < wy1; y++) {
    for (let x = wx0; x < wx1; x++) {
      const p = y * width + x
      const k = (y - wy0) * w + x - wx0
      const a = alpha[p] / 255
      terms[3][k] = a
      terms[7][k] = 1 - a
      if (a === 1) {
        // Opaque: the foreground is the photo.
        for (let c = 0; c < 3; c++) terms[c][k] = rgba[p * 4 + c] / 255
        continue
      }
      sampleField(fields.background, fields, x, y, b)
      for (let c = 0; c < 3; c++) terms[4 + c][k] = b[c] * (1 - a)
      if (a === 0) continue
      sampleField(fields.foreground, fields, x, y, f)
      for (let c = 0; c < 3; c++) {
        const estimate = f[c] + a * (rgba[p * 4 + c] / 255 - a * f[c] - (1 - a) * b[c])
        terms[c][k] = Math.min(1, Math.max(0, estimate)) * a
      }
    }
  }
  const h = wy1 - wy0
  const tables = terms.map((term) => summedArea(term, w, h))
  for (let y = rect.y0; y < rect.y1; y++) {
    const top = Math.max(wy0, y - r) - wy0
    const bottom = Math.min(wy1, y + r + 1) - wy0
    for (let x = rect.x0; x < rect.x1; x++) {
      const p = y * width + x
      const a = alpha[p] / 255
      if (a === 0 || a === 1) continue
      const left = Math.max(wx0, x - r) - wx0
      const right = Math.min(wx1, x + r + 1) - wx0
      const weightF = boxSum(tables[3], w, left, top, right, bottom) + TINY
      const weightB = boxSum(tables[7], w, left, top, right, bottom) + TINY
      for (let c = 0; c < 3; c++) {
        const fc = boxSum(tables[c], w, left, top, right, bottom) / weightF
        const bc = boxSum(tables[4 + c], w, left, top, right, bottom) / weightB
        const estimate = fc + a * (rgba[p * 4 + c] / 255 - a * fc - (1 - a) * bc)
        out[p * 4 + c] = estimate <= 0 ? 0 : estimate >= 1 ? 255 : Math.round(estimate * 255)
      }
    }
  }
}

/**
 * @typedef {object} EdgeSampling  the sampled edge (docs/decisions/128)
 * @property {number} band  half-width (px) of the uncertain band on either side of the outline
 * @property {number} contrast  the foreground and background samples' colour distance (0..255 RGB) from which the sample's alpha is trusted fully
 * @property {number} minAlpha  below this alpha the solved colour is blended with the foreground sample's
 * @property {boolean} [keepsMask]  a pixel of the thresholded matte keeps alpha ≥ 0.5 (at least 128): the step softens what the
 *   matte holds, never takes it out (decision 168)
 */

/**
 * The share of the window's thresholded matte set in the (2d + 1)² box around (x, y), from its
 * summed-area table (`stride` = w + 1); the box is clipped to the window (a share, so a box cut
 * by the picture's border does not read as a slope).
 * @param {Int32Array} table @param {number} stride @param {number} w @param {number} h @param {number} x @param {number} y @param {number} d
 */
function boxShare(table, stride, w, h, x, y, d) {
  const left = Math.max(0, x - d)
  const right = Math.min(w, x + d + 1)
  const top = Math.max(0, y - d)
  const bottom = Math.min(h, y + d + 1)
  const n = table[bottom * stride + right] - table[top * stride + right] - table[bottom * stride + left] + table[top * stride + left]
  return n / ((right - left) * (bottom - top))
}

/** How far (px) around a rect sampleEdgesRect reads: its walks in and out (2·band + 4) and their pixels' own band test (band). */
export function samplingMargin(/** @type {number} */ band) {
  return 3 * band + 5
}

/**
 * Sampling matting in the uncertain band of a refined matte (after Gastal & Oliveira's shared
 * sampling, 2010, reduced to one pair of samples a pixel). The band is every pixel whose
 * (2·band + 1)² box holds both sides of the thresholded matte; outside it the matte is sure. For
 * each band pixel of `rect`, the way into the subject is where the box count of the thresholded
 * matte grows (its gradient); along it:
 *   - F: the colour of the first sure foreground pixel inward (the subject's own edge colour: an
 *     outline's, not its fill's);
 *   - B: the mean colour of the first three sure background pixels outward (the backdrop behind the edge);
 *   - the alpha that mixes them into the photo's colour I, projected on the line from B to F,
 *     trusted as far as F and B differ (`contrast`) and otherwise the matte's own;
 *   - the foreground colour from the compositing equation, F' = B + (I − B)/alpha (blended with F
 *     by alpha/minAlpha below `minAlpha`, where dividing would amplify noise), written into `colours`
 *     unless it lies farther from F than the photo's colour I does (then the samples do not fit
 *     the pixel, and I stays).
 * Pixels without a sample on either side within 2·band + 2 px keep their alpha and colour. Reads
 * `alpha` and `rgba` up to samplingMargin(band) px around the rect; writes `outAlpha` (and
 * `colours`) for its band pixels only, and reads `rgba` only at sure pixels and its own, so rects
 * can be done in any order and on any thread, and `rgba` may be `colours` itself.
 * @param {Uint8Array} alpha the refined matte, read only
 * @param {Uint8Array} rgba the photo
 * @param {number} width @param {number} height
 * @param {Rect} rect
 * @param {EdgeSampling} sampling
 * @param {Uint8Array} outAlpha
 * @param {Uint8Array | undefined} colours RGBA, the foreground colours of partly transparent pixels written in
 */
export function sampleEdgesRect(alpha, rgba, width, height, rect, sampling, outAlpha, colours) {
  const d = sampling.band
  const m = samplingMargin(d)
  const wx0 = Math.max(0, rect.x0 - m)
  const wy0 = Math.max(0, rect.y0 - m)
  const wx1 = Math.min(width, rect.x1 + m)
  const wy1 = Math.min(height, rect.y1 + m)
  const w = wx1 - wx0
  const h = wy1 - wy0
  const stride = w + 1
  // Summed-area table of the thresholded matte: a box's count tells sure inside, sure outside or band.
  const inside = new Int32Array(stride * (h + 1))
  for (let y = 0; y < h; y++) {
    let row = 0
    for (let x = 0, p = (wy0 + y) * width + wx0; x < w; x++, p++) {
      row += alpha[p] >= 128 ? 1 : 0
      inside[(y + 1) * stride + x + 1] = inside[y * stride + x + 1] + row
    }
  }
  /** 1 sure foreground, 2 sure background, 0 band, at window pixel (x, y). */
  const sideAt = (/** @type {number} */ x, /** @type {number} */ y) => {
    const left = Math.max(0, x - d)
    const right = Math.min(w, x + d + 1)
    const top = Math.max(0, y - d)
    const bottom = Math.min(h, y + d + 1)
    const n = inside[bottom * stride + right] - inside[top * stride + right] - inside[bottom * stride + left] + inside[top * stride + left]
    return n === 0 ? 2 : n === (right - left) * (bottom - top) ? 1 : 0
  }
  const reach = 2 * d + 2
  const contrast2 = sampling.contrast * sampling.contrast
  const f = [0, 0, 0]
  const bg = [0, 0, 0]
  const solved = [0, 0, 0]
  for (let y = rect.y0; y < rect.y1; y++) {
    const wy = y - wy0
    for (let x = rect.x0; x < rect.x1; x++) {
      const wx = x - wx0
      if (sideAt(wx, wy) !== 0) continue
      const p = y * width + x
      const gx = boxShare(inside, stride, w, h, wx + 1, wy, d) - boxShare(inside, stride, w, h, wx - 1, wy, d)
      const gy = boxShare(inside, stride, w, h, wx, wy + 1, d) - boxShare(inside, stride, w, h, wx, wy - 1, d)
      const norm = Math.hypot(gx, gy)
      if (norm === 0) continue
      const ux = gx / norm
      const uy = gy / norm
      let sp = -1
      for (let t = 1; t <= reach; t++) {
        const cx = Math.round(wx + ux * t)
        const cy = Math.round(wy + uy * t)
        if (cx < 0 || cy < 0 || cx >= w || cy >= h) break
        if (sideAt(cx, cy) === 1) {
          sp = (wy0 + cy) * width + wx0 + cx
          break
        }
      }
      if (sp < 0) continue
      let found = 0
      bg[0] = bg[1] = bg[2] = 0
      for (let t = 1; t <= reach + 2 && found < 3; t++) {
        const cx = Math.round(wx - ux * t)
        const cy = Math.round(wy - uy * t)
        if (cx < 0 || cy < 0 || cx >= w || cy >= h) break
        if (sideAt(cx, cy) !== 2) {
          if (found) break
          continue
        }
        const q = ((wy0 + cy) * width + wx0 + cx) * 4
        bg[0] += rgba[q]
        bg[1] += rgba[q + 1]
        bg[2] += rgba[q + 2]
        found++
      }
      if (!found) continue
      let num = 0
      let den = 0
      for (let c = 0; c < 3; c++) {
        bg[c] /= found
        f[c] = rgba[sp * 4 + c]
        const fb = f[c] - bg[c]
        num += (rgba[p * 4 + c] - bg[c]) * fb
        den += fb * fb
      }
      let a = alpha[p] / 255
      if (den > 1) {
        const trust = Math.min(1, den / contrast2)
        const sampled = Math.min(1, Math.max(0, num / den))
        a = trust * sampled + (1 - trust) * a
      }
      // A pixel the matte holds stays held (keepsMask); its colour is still unmixed at the sampled alpha
      // (decision 168: unmixed at 0.5 instead, the bench's colour bleed rose by 8 %).
      const out = sampling.keepsMask && alpha[p] >= 128 && a < 128 / 255 ? 128 : Math.round(a * 255)
      outAlpha[p] = out
      if (!colours || out === 0 || out === 255) continue
      // Below minAlpha the solution weighs a/minAlpha, so the photo's noise is amplified at most 1/minAlpha times.
      const weight = Math.min(1, a / sampling.minAlpha)
      let solvedFromF = 0
      let photoFromF = 0
      for (let c = 0; c < 3; c++) {
        const unmixed = bg[c] + (rgba[p * 4 + c] - bg[c]) / a
        const v = weight * unmixed + (1 - weight) * f[c]
        solved[c] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v)
        solvedFromF += (unmixed - f[c]) ** 2
        photoFromF += (rgba[p * 4 + c] - f[c]) ** 2
      }
      // Unmixing that lands farther from the subject's own colour F than the photo's colour I is means
      // the samples do not fit this pixel (B is not what lies behind it, or alpha is off): it would add
      // colour rather than take the backdrop's out, so I stays (decision 153).
      if (solvedFromF > photoFromF) continue
      for (let c = 0; c < 3; c++) colours[p * 4 + c] = solved[c]
    }
  }
}
