// The segmentation matte enlarged to the image's size, exact only where its values can reach the output.
//
// The remover keeps the model's soft values only in a narrow band along the subject's outline (see
// refineMatte): deep inside the subject alpha is 255 and far outside it is 0, whatever the matte says
// there. So the cubic upscale (bicubic-upscale.mjs, byte for byte sharp's) is computed only for
// tiles near an uncertain part of the matte; every other tile gets a stand-in, 255 where the cubic
// value is surely at least the threshold and 0 where it is surely below. The refined matte, and so
// the output, is the same byte for byte. A large matte is written in bands by the image threads.
import os from 'node:os'
import sharp from 'sharp'
import { bicubicApplies, bicubicUpscaler } from './bicubic-upscale.mjs'
import { imageThreads } from './image-threads.server'
import { thresholdMatte, TILE, TILE_ABOVE, TILE_BELOW, TILE_UNCERTAIN, writeTileRows, type TilePlan } from './matte-tiles.mjs'
import type { RawImage } from './pixels.server'

/**
 * Cubic (Catmull-Rom) weights sum to 1 and their negative lobes to at most 0.28125 in two
 * dimensions (0.125 per axis), so from 0..255 samples all at least `m`, the result is at least
 * m − 0.28125 (255 − m): ≥ 157 gives ≥ 128; and from samples all at most `m`, at most 1.28125 m:
 * all at most 59 gives under 77, the alpha from which refineMatte counts a confident part
 * (CONFIDENT_ALPHA: it must see a part the model holds at 0.3-0.5, not a stand-in 0). These
 * thresholds keep a margin for the fixed-point arithmetic (12-bit weights truncated, two roundings).
 */
const SURELY_ABOVE = 165
const SURELY_BELOW = 52
/** From this many output pixels on, the matte is written in bands by the image threads (a 1 MP matte takes about 6 ms either way). */
const THREADED_MIN_PIXELS = 2_000_000

export interface UpscaledMatte {
  /** One byte per pixel: the exact cubic value wherever it can matter, else 255 or 0 on the same side of `threshold`. */
  data: Buffer
  /** Whether any pixel is at or above the threshold (if none, the stand-ins would be all the output has, so callers need the exact matte). */
  hasForeground: boolean
  /** The mask: 255 where `data` is at or above the threshold, else 0 (refineMatte starts from it). */
  mask: Uint8Array
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
 * px of a tile whose values may reach CONFIDENT_ALPHA and fall short of the threshold (128) anywhere;
 * elsewhere 255 or 0.
 * A downscale (or a stretch that shrinks either axis) reads a wider footprint: computed whole.
 * From THREADED_MIN_PIXELS on (or as `inThreads` says) the image threads write it in bands.
 */
export async function upscaleMatteNearEdges(
  matte: RawImage,
  width: number,
  height: number,
  reach: number,
  options: { inThreads?: boolean } = {},
): Promise<UpscaledMatte> {
  const whole = async (): Promise<UpscaledMatte> => {
    const data = await upscaleMatteExact(matte, width, height)
    const mask = new Uint8Array(width * height)
    thresholdMatte(data, mask, 0, data.length)
    return { data, hasForeground: mask.includes(255), mask }
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
      states[ty * tilesX + tx] = lo >= SURELY_ABOVE ? TILE_ABOVE : hi <= SURELY_BELOW ? TILE_BELOW : TILE_UNCERTAIN
    }
  }

  // A tile is needed when an uncertain tile lies within `reach` px of it.
  const ring = Math.ceil(Math.max(0, reach) / TILE)
  const needed = new Uint8Array(tilesX * tilesY)
  let anyAbove = false
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const state = states[ty * tilesX + tx]
      if (state === TILE_ABOVE) anyAbove = true
      if (state !== TILE_UNCERTAIN) continue
      for (let ny = Math.max(0, ty - ring); ny <= Math.min(tilesY - 1, ty + ring); ny++) {
        for (let nx = Math.max(0, tx - ring); nx <= Math.min(tilesX - 1, tx + ring); nx++) {
          needed[ny * tilesX + nx] = 1
        }
      }
    }
  }
  const plan: TilePlan = { matte, width, height, states, needed }
  const inThreads = options.inThreads ?? width * height >= THREADED_MIN_PIXELS
  if (!inThreads) {
    const out = Buffer.allocUnsafe(width * height)
    const mask = new Uint8Array(width * height)
    const foreground = writeTileRows(plan, 0, tilesY, out, mask, !anyAbove)
    return { data: out, hasForeground: anyAbove || foreground, mask }
  }
  // Shared memory: each thread writes its band of tile rows straight into the one output.
  const shared = new SharedArrayBuffer(width * height)
  const sharedMask = new SharedArrayBuffer(width * height)
  const bands = Math.min(imageThreads().size, tilesY)
  const perBand = Math.ceil(tilesY / bands)
  const answers = await Promise.all(
    Array.from({ length: bands }, (_, b) =>
      imageThreads()
        .pick()
        .request({
          op: 'upscale',
          matte: matte.data,
          matteWidth: matte.width,
          matteHeight: matte.height,
          width,
          height,
          states,
          needed,
          tileRowFrom: b * perBand,
          tileRowTo: Math.min(tilesY, (b + 1) * perBand),
          out: shared,
          mask: sharedMask,
          lookForForeground: !anyAbove,
        }),
    ),
  )
  return {
    data: Buffer.from(shared),
    hasForeground: anyAbove || answers.some((answer) => answer.foreground === true),
    mask: new Uint8Array(sharedMask),
  }
}
