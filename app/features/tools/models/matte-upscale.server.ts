// The segmentation matte enlarged to the image's size, exact only where its values can reach the output.
//
// The remover keeps the model's soft values only in a narrow band along the subject's outline (see
// refineMatte): deep inside the subject alpha is 255 and far outside it is 0, whatever the matte says
// there. So the full cubic upscale (libvips, about 19 ns a pixel on one core: over 200 ms at 12 MP) is
// computed only for tiles near an uncertain part of the matte; every other tile gets a stand-in, 255
// where the cubic value is surely at least the threshold and 0 where it is surely below. The refined
// matte, and so the output, is the same byte for byte.
import os from 'node:os'
import sharp from 'sharp'
import type { RawImage } from './pixels.server'

/** Side of the square tiles the output is classified by. */
const TILE = 16
/** Tile rows requested from libvips together (one request per run of needed tiles in such a band). */
const BAND_TILES = 8
/**
 * Cubic (Catmull-Rom) weights sum to 1 and their negative lobes to at most 0.28125 in two
 * dimensions (0.125 per axis), so from 0..255 samples all at least `m`, the result is at least
 * m − 0.28125 (255 − m): ≥ 157 gives ≥ 128, and all at most 98 gives < 128. These thresholds keep
 * a margin for libvips' fixed-point arithmetic.
 */
const SURELY_ABOVE = 165
const SURELY_BELOW = 90
/**
 * Output pixel x samples source pixels floor(X) − 1 .. floor(X) + 2 around X = (x + ½) / scale − ½
 * (pixel centres aligned); one more on each side allows for another rounding of that position.
 */
const TAPS_BEFORE = 2
const TAPS_AFTER = 3
/** Above this share of needed tiles, one whole-image upscale is cheaper than the pieces. */
const PIECES_LIMIT = 0.6

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

/** Where output pixel `x`'s centre falls in the source, in source pixels. */
function sourceCentre(x: number, scale: number): number {
  return (x + 0.5) / scale - 0.5
}

function cubicUpscale(matte: RawImage, width: number, height: number) {
  return sharp(matte.data, { raw: { width: matte.width, height: matte.height, channels: 1 } }).resize(width, height, {
    fit: 'fill',
    kernel: 'cubic',
  })
}

/** Rows `top`..`top + rows` of the cubic upscale, columns `left`..`left + cols`: libvips computes only that region. */
function upscaledRegion(matte: RawImage, width: number, height: number, left: number, top: number, cols: number, rows: number): Promise<Buffer> {
  return cubicUpscale(matte, width, height).extract({ left, top, width: cols, height: rows }).toColourspace('b-w').raw().toBuffer()
}

/**
 * The whole cubic upscale, cut in horizontal bands rendered at once: sharp runs each on its own
 * libuv thread (libvips itself uses one thread per image here), so the cores share the work.
 */
export async function upscaleMatteExact(matte: RawImage, width: number, height: number): Promise<Buffer> {
  const bands = Math.max(1, Math.min(os.availableParallelism(), Math.floor(height / 64)))
  const rowsPerBand = Math.ceil(height / bands)
  const out = Buffer.allocUnsafe(width * height)
  await Promise.all(
    Array.from({ length: bands }, async (_, b) => {
      const top = b * rowsPerBand
      const rows = Math.min(rowsPerBand, height - top)
      if (rows <= 0) return
      const region = await upscaledRegion(matte, width, height, 0, top, width, rows)
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
  const scaleX = width / matte.width
  const scaleY = height / matte.height
  const whole = async (): Promise<UpscaledMatte> => {
    const data = await upscaleMatteExact(matte, width, height)
    return { data, hasForeground: data.some((v) => v >= 128) }
  }
  if (scaleX < 1 || scaleY < 1) return whole()

  const tilesX = Math.ceil(width / TILE)
  const tilesY = Math.ceil(height / TILE)
  const states = new Uint8Array(tilesX * tilesY)
  const src = matte.data
  for (let ty = 0; ty < tilesY; ty++) {
    const y0 = Math.max(0, Math.floor(sourceCentre(ty * TILE, scaleY)) - TAPS_BEFORE)
    const y1 = Math.min(matte.height - 1, Math.floor(sourceCentre(Math.min(height, (ty + 1) * TILE) - 1, scaleY)) + TAPS_AFTER)
    for (let tx = 0; tx < tilesX; tx++) {
      const x0 = Math.max(0, Math.floor(sourceCentre(tx * TILE, scaleX)) - TAPS_BEFORE)
      const x1 = Math.min(matte.width - 1, Math.floor(sourceCentre(Math.min(width, (tx + 1) * TILE) - 1, scaleX)) + TAPS_AFTER)
      let lo = 255
      let hi = 0
      for (let y = y0; y <= y1; y++) {
        for (let i = y * matte.width + x0, end = y * matte.width + x1; i <= end; i++) {
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
  let neededCount = 0
  let anyAbove = false
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const state = states[ty * tilesX + tx]
      if (state === TileState.Above) anyAbove = true
      if (state !== TileState.Uncertain) continue
      for (let ny = Math.max(0, ty - ring); ny <= Math.min(tilesY - 1, ty + ring); ny++) {
        for (let nx = Math.max(0, tx - ring); nx <= Math.min(tilesX - 1, tx + ring); nx++) {
          if (!needed[ny * tilesX + nx]) {
            needed[ny * tilesX + nx] = 1
            neededCount++
          }
        }
      }
    }
  }
  if (neededCount > PIECES_LIMIT * tilesX * tilesY) return whole()

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
  // Exact values: per band of tile rows, one request per run of columns needed in any of its rows.
  const requests: Promise<boolean>[] = []
  for (let by = 0; by < tilesY; by += BAND_TILES) {
    const lastRow = Math.min(tilesY, by + BAND_TILES)
    for (let tx = 0; tx < tilesX; ) {
      const neededAt = (x: number) => {
        for (let ty = by; ty < lastRow; ty++) if (needed[ty * tilesX + x]) return true
        return false
      }
      if (!neededAt(tx)) {
        tx++
        continue
      }
      const first = tx
      while (tx < tilesX && neededAt(tx)) tx++
      const left = first * TILE
      const cols = Math.min(width, tx * TILE) - left
      const top = by * TILE
      const rows = Math.min(height, lastRow * TILE) - top
      requests.push(
        upscaledRegion(matte, width, height, left, top, cols, rows).then((region) => {
          for (let y = 0; y < rows; y++) region.copy(out, (top + y) * width + left, y * cols, (y + 1) * cols)
          if (anyAbove) return true
          for (let i = 0; i < region.length; i++) if (region[i] >= 128) return true
          return false
        }),
      )
    }
  }
  const foregrounds = await Promise.all(requests)
  return { data: out, hasForeground: anyAbove || foregrounds.some(Boolean) }
}
