// The segmentation matte enlarged to the image's size, exact only where its values can reach the output.
//
// The remover keeps the model's soft values only in a narrow band along the subject's outline (see
// refineMatte): deep inside the subject alpha is 255 and far outside it is 0, whatever the matte says
// there. So the cubic upscale (bicubic-upscale.server.ts, byte for byte sharp's) is computed only for
// tiles near an uncertain part of the matte; every other tile gets a stand-in, 255 where the cubic
// value is surely at least the threshold and 0 where it is surely below. The refined matte, and so
// the output, is the same byte for byte.
import os from 'node:os'
import sharp from 'sharp'
import { bicubicApplies, bicubicUpscaler } from './bicubic-upscale.server'
import type { RawImage } from './pixels.server'

/** Side of the square tiles the output is classified by. */
const TILE = 16
/**
 * Cubic (Catmull-Rom) weights sum to 1 and their negative lobes to at most 0.28125 in two
 * dimensions (0.125 per axis), so from 0..255 samples all at least `m`, the result is at least
 * m − 0.28125 (255 − m): ≥ 157 gives ≥ 128, and all at most 98 gives < 128. These thresholds keep
 * a margin for the fixed-point arithmetic (12-bit weights truncated, two roundings).
 */
const SURELY_ABOVE = 165
const SURELY_BELOW = 90

const enum TileState {
  Below = 0,
  Uncertain = 1,
  Above = 2,
}

export interface UpscaledMatte {
  /** One byte per pixel: the exact cubic value wherever it can matter, else 255 or 0 on the same side of `threshold`. */
  data: Buffer
  /** Whether any pixel is at or above the threshold (if none, the stand-ins would be all the output has, so callers need the exact matte). */
  hasForeground: boolean
}

/**
 * The whole cubic upscale, as sharp's resize(kernel 'cubic') gives it. A reduction on either axis
 * is libvips' own (its kernels read further than the upscaler's 4×4), cut in horizontal bands
 * rendered at once: sharp runs each on its own libuv thread, so the cores share the work.
 */
export async function upscaleMatteExact(matte: RawImage, width: number, height: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(width * height)
  if (bicubicApplies(matte, width, height)) {
    bicubicUpscaler(matte, width, height).region(0, 0, width, height, out, 0, width)
    return out
  }
  const bands = Math.max(1, Math.min(os.availableParallelism(), Math.floor(height / 64)))
  const rowsPerBand = Math.ceil(height / bands)
  await Promise.all(
    Array.from({ length: bands }, async (_, b) => {
      const top = b * rowsPerBand
      const rows = Math.min(rowsPerBand, height - top)
      if (rows <= 0) return
      const region = await sharp(matte.data, { raw: { width: matte.width, height: matte.height, channels: 1 } })
        .resize(width, height, { fit: 'fill', kernel: 'cubic' })
        .extract({ left: 0, top, width, height: rows })
        .toColourspace('b-w')
        .raw()
        .toBuffer()
      region.copy(out, top * width)
    }),
  )
  return out
}

/**
 * The cubic upscale of a one-channel matte to width × height, exact in every pixel within `reach`
 * px of a tile whose values may fall on either side of `threshold` (128); elsewhere 255 or 0.
 * A downscale (or a stretch that shrinks either axis) reads a wider footprint: computed whole.
 */
export async function upscaleMatteNearEdges(matte: RawImage, width: number, height: number, reach: number): Promise<UpscaledMatte> {
  const whole = async (): Promise<UpscaledMatte> => {
    const data = await upscaleMatteExact(matte, width, height)
    return { data, hasForeground: data.some((v) => v >= 128) }
  }
  if (!bicubicApplies(matte, width, height)) return whole()
  const upscaler = bicubicUpscaler(matte, width, height)

  const tilesX = Math.ceil(width / TILE)
  const tilesY = Math.ceil(height / TILE)
  const states = new Uint8Array(tilesX * tilesY)
  const src = matte.data
  for (let ty = 0; ty < tilesY; ty++) {
    // Every source pixel the tile's outputs read (the upscaler's own taps).
    const rows = upscaler.sourceRows(ty * TILE, Math.min(height, (ty + 1) * TILE))
    for (let tx = 0; tx < tilesX; tx++) {
      const columns = upscaler.sourceColumns(tx * TILE, Math.min(width, (tx + 1) * TILE))
      let lo = 255
      let hi = 0
      for (let y = rows.first; y <= rows.last; y++) {
        for (let i = y * matte.width + columns.first, end = y * matte.width + columns.last; i <= end; i++) {
          const v = src[i]
          if (v < lo) lo = v
          if (v > hi) hi = v
        }
      }
      states[ty * tilesX + tx] = lo >= SURELY_ABOVE ? TileState.Above : hi <= SURELY_BELOW ? TileState.Below : TileState.Uncertain
    }
  }

  // A tile is needed when an uncertain tile lies within `reach` px of it.
  const ring = Math.ceil(Math.max(0, reach) / TILE)
  const needed = new Uint8Array(tilesX * tilesY)
  let anyAbove = false
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const state = states[ty * tilesX + tx]
      if (state === TileState.Above) anyAbove = true
      if (state !== TileState.Uncertain) continue
      for (let ny = Math.max(0, ty - ring); ny <= Math.min(tilesY - 1, ty + ring); ny++) {
        for (let nx = Math.max(0, tx - ring); nx <= Math.min(tilesX - 1, tx + ring); nx++) {
          needed[ny * tilesX + nx] = 1
        }
      }
    }
  }
  const out = Buffer.allocUnsafe(width * height)
  // Stand-ins for the tiles left out, filled a run of like tiles at a time.
  for (let ty = 0; ty < tilesY; ty++) {
    const top = ty * TILE
    const bottom = Math.min(height, top + TILE)
    for (let tx = 0; tx < tilesX; ) {
      const state = states[ty * tilesX + tx]
      if (needed[ty * tilesX + tx]) {
        tx++
        continue
      }
      const first = tx
      while (tx < tilesX && !needed[ty * tilesX + tx] && states[ty * tilesX + tx] === state) tx++
      const value = state === TileState.Above ? 255 : 0
      const left = first * TILE
      const right = Math.min(width, tx * TILE)
      for (let y = top; y < bottom; y++) out.fill(value, y * width + left, y * width + right)
    }
  }
  // Exact values, a run of needed tiles at a time.
  let foreground = anyAbove
  for (let ty = 0; ty < tilesY; ty++) {
    const top = ty * TILE
    const rows = Math.min(height, top + TILE) - top
    for (let tx = 0; tx < tilesX; ) {
      if (!needed[ty * tilesX + tx]) {
        tx++
        continue
      }
      const first = tx
      while (tx < tilesX && needed[ty * tilesX + tx]) tx++
      const left = first * TILE
      const cols = Math.min(width, tx * TILE) - left
      upscaler.region(left, top, cols, rows, out, top * width + left, width)
      if (!foreground) {
        for (let y = top; y < top + rows && !foreground; y++) {
          for (let p = y * width + left, end = p + cols; p < end; p++) {
            if (out[p] >= 128) {
              foreground = true
              break
            }
          }
        }
      }
    }
  }
  return { data: out, hasForeground: foreground }
}
