// The remover's upscaled matte, written a band of tile rows at a time: exact cubic values in the
// tiles near the outline, stand-ins (255 or 0) elsewhere. Which tile is which is decided once for
// the whole matte by matte-upscale.server.ts; the bands are written there or in the image threads
// (image-worker.mjs), so plain JavaScript (docs/decisions/077).
import { bicubicUpscaler } from './bicubic-upscale.mjs'

/** A matte value at or above this is the subject. */
export const MATTE_THRESHOLD = 128

/**
 * The mask of pixels start..end−1 of `matte` (255 at or above MATTE_THRESHOLD, else 0), written
 * into `mask`. Four pixels at a time where both are aligned alike: the threshold being 128, a
 * byte's top bit moved down to its lowest bit, times 255, is the answer.
 * @param {Uint8Array} matte
 * @param {Uint8Array} mask
 * @param {number} start
 * @param {number} end
 */
export function thresholdMatte(matte, mask, start, end) {
  let p = start
  if (matte.byteOffset % 4 === mask.byteOffset % 4) {
    for (; p < end && (matte.byteOffset + p) % 4 !== 0; p++) mask[p] = matte[p] >= MATTE_THRESHOLD ? 255 : 0
    const matteWords = new Uint32Array(matte.buffer, matte.byteOffset + p, (end - p) >>> 2)
    const maskWords = new Uint32Array(mask.buffer, mask.byteOffset + p, (end - p) >>> 2)
    // 0 or 1 in each byte, times 255: no carry crosses a byte.
    for (let w = 0; w < matteWords.length; w++) maskWords[w] = ((matteWords[w] >>> 7) & 0x01010101) * 255
    p += matteWords.length * 4
  }
  for (; p < end; p++) mask[p] = matte[p] >= MATTE_THRESHOLD ? 255 : 0
}

/** Side of the square tiles the output is classified by. */
export const TILE = 16
/** A tile's cubic values are all below the threshold, all at or above it, or may be either. */
export const TILE_BELOW = 0
export const TILE_UNCERTAIN = 1
export const TILE_ABOVE = 2

/**
 * @typedef {object} TilePlan
 * @property {import('./bicubic-upscale.mjs').OneChannelImage} matte The model's matte.
 * @property {number} width The output's size.
 * @property {number} height
 * @property {Uint8Array} states Each tile's TILE_* state, row by row of tiles.
 * @property {Uint8Array} needed 1 for a tile whose exact values are needed.
 */

/**
 * Writes tile rows tileRowFrom..tileRowTo−1 of the upscaled matte into `out` (the whole output):
 * each run of like tiles left out as one stand-in fill, each run of needed tiles as one region of
 * the upscaler; and their mask (thresholdMatte) into `mask`. Answers whether any exact value is at
 * or above the threshold, when asked to look.
 * @param {TilePlan} plan
 * @param {number} tileRowFrom
 * @param {number} tileRowTo
 * @param {Uint8Array} out
 * @param {Uint8Array} mask
 * @param {boolean} lookForForeground
 * @returns {boolean}
 */
export function writeTileRows(plan, tileRowFrom, tileRowTo, out, mask, lookForForeground) {
  const { matte, width, height, states, needed } = plan
  const tilesX = Math.ceil(width / TILE)
  const upscaler = bicubicUpscaler(matte, width, height)
  let foreground = false
  for (let ty = tileRowFrom; ty < tileRowTo; ty++) {
    const top = ty * TILE
    const bottom = Math.min(height, top + TILE)
    for (let tx = 0; tx < tilesX; ) {
      const first = tx
      const left = first * TILE
      if (needed[ty * tilesX + tx]) {
        while (tx < tilesX && needed[ty * tilesX + tx]) tx++
        const cols = Math.min(width, tx * TILE) - left
        upscaler.region(left, top, cols, bottom - top, out, top * width + left, width)
        if (lookForForeground && !foreground) {
          for (let y = top; y < bottom && !foreground; y++) {
            for (let p = y * width + left, end = p + cols; p < end; p++) {
              if (out[p] >= MATTE_THRESHOLD) {
                foreground = true
                break
              }
            }
          }
        }
        continue
      }
      const state = states[ty * tilesX + tx]
      while (tx < tilesX && !needed[ty * tilesX + tx] && states[ty * tilesX + tx] === state) tx++
      const value = state === TILE_ABOVE ? 255 : 0
      const right = Math.min(width, tx * TILE)
      for (let y = top; y < bottom; y++) out.fill(value, y * width + left, y * width + right)
    }
    thresholdMatte(out, mask, top * width, bottom * width)
  }
  return foreground
}
