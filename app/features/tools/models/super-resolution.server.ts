// Real-ESRGAN general x4v3, run tile by tile so memory stays bounded whatever the image size:
// each tile is read with a margin of context, and only its core is written to the output.
import { runModel, runSession, type LoadedModel } from './registry.server'
import type { RawImage } from './pixels.server'

export const SR_MODEL = 'realesr-general-x4v3'
export const SR_FACTOR = 4
/**
 * Input pixels per tile side (its core). 256 keeps a run's activations near 20 MB per layer, and the
 * overlap costs (280/256)² = 1.2× the work, against 1.3× for 160 px tiles; the model's time per pixel
 * is the same at both sizes.
 */
export const TILE = 256
/** Context read around each tile and then cropped away, so tile seams do not show. */
export const TILE_OVERLAP = 12

/**
 * Upscales an RGB (3-channel) image ×4 with the general model, or with `model` (the same network with
 * other weights, such as a denoise blend). An aborted `signal` stops it between tiles.
 */
export async function upscale4x(
  image: RawImage,
  options: {
    signal?: AbortSignal
    tile?: number
    model?: LoadedModel
    /** Called after each tile with the tiles done and the total: the enhancer's real progress. */
    onTile?: (done: number, total: number) => void
  } = {},
): Promise<{ image: RawImage; modelMs: number }> {
  const { signal, tile = TILE, model, onTile } = options
  if (image.channels !== 3) throw new TypeError('upscale4x expects 3 channels (RGB)')
  const { width, height } = image
  const outWidth = width * SR_FACTOR
  const outHeight = height * SR_FACTOR
  const out = Buffer.allocUnsafe(outWidth * outHeight * 3)
  let modelMs = 0
  const tiles = Math.ceil(width / tile) * Math.ceil(height / tile)
  let tilesDone = 0
  for (let top = 0; top < height; top += tile) {
    for (let left = 0; left < width; left += tile) {
      // A run past its time limit stops here, freeing the CPU within one tile instead of minutes later.
      signal?.throwIfAborted()
      const coreW = Math.min(tile, width - left)
      const coreH = Math.min(tile, height - top)
      const x0 = Math.max(0, left - TILE_OVERLAP)
      const y0 = Math.max(0, top - TILE_OVERLAP)
      const x1 = Math.min(width, left + coreW + TILE_OVERLAP)
      const y1 = Math.min(height, top + coreH + TILE_OVERLAP)
      const tw = x1 - x0
      const th = y1 - y0
      const plane = tw * th
      const input = new Float32Array(3 * plane)
      for (let y = 0; y < th; y++) {
        let i = ((y0 + y) * width + x0) * 3
        for (let x = 0; x < tw; x++, i += 3) {
          const j = y * tw + x
          input[j] = image.data[i] / 255
          input[plane + j] = image.data[i + 1] / 255
          input[2 * plane + j] = image.data[i + 2] / 255
        }
      }
      const dims = [1, 3, th, tw]
      const { output, ms } = model ? await runSession(model, input, dims) : await runModel(SR_MODEL, input, dims)
      modelMs += ms
      const result = output.data as Float32Array
      const ow = tw * SR_FACTOR
      const outPlane = ow * th * SR_FACTOR
      // Copy the core: skip the context rows and columns the tile was given.
      const skipX = (left - x0) * SR_FACTOR
      const skipY = (top - y0) * SR_FACTOR
      for (let y = 0; y < coreH * SR_FACTOR; y++) {
        const srcRow = (skipY + y) * ow + skipX
        let o = ((top * SR_FACTOR + y) * outWidth + left * SR_FACTOR) * 3
        for (let x = 0; x < coreW * SR_FACTOR; x++, o += 3) {
          const s = srcRow + x
          for (let k = 0; k < 3; k++) {
            const v = result[k * outPlane + s] * 255
            out[o + k] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v)
          }
        }
      }
      onTile?.(++tilesDone, tiles)
    }
  }
  return { image: { data: out, width: outWidth, height: outHeight, channels: 3 }, modelMs }
}
