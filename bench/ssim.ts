// SSIM (Wang et al. 2004) on luma, the perceptual check of an output's encoding: the lossy file
// against the lossless pixels it was encoded from. 8×8 windows sliding by 4 (as x264's and
// libjpeg-turbo's tools do), BT.601 luma, the paper's constants; 1 is identical.
import type { RgbaImage } from '../app/features/tools/image'

const WINDOW = 8
const STRIDE = 4
const C1 = (0.01 * 255) ** 2
const C2 = (0.03 * 255) ** 2

/** BT.601 luma of an RGBA image (alpha ignored: compare opaque pictures, or flatten first). */
export function luma(image: RgbaImage): Float64Array {
  const out = new Float64Array(image.width * image.height)
  for (let p = 0, i = 0; p < out.length; p++, i += 4) out[p] = 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2]
  return out
}

/** Mean SSIM of two same-sized images' luma over every window. */
export function ssim(a: RgbaImage, b: RgbaImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} and ${b.width}×${b.height}`)
  const { width, height } = a
  const x = luma(a)
  const y = luma(b)
  const n = WINDOW * WINDOW
  let total = 0
  let windows = 0
  // Windows smaller than the image's side still count once (tiny images).
  const lastTop = Math.max(0, height - WINDOW)
  const lastLeft = Math.max(0, width - WINDOW)
  for (let top = 0; top <= lastTop; top += STRIDE) {
    for (let left = 0; left <= lastLeft; left += STRIDE) {
      let sx = 0
      let sy = 0
      let sxx = 0
      let syy = 0
      let sxy = 0
      let count = 0
      for (let r = top; r < Math.min(height, top + WINDOW); r++) {
        for (let c = left, p = r * width + left; c < Math.min(width, left + WINDOW); c++, p++) {
          const u = x[p]
          const v = y[p]
          sx += u
          sy += v
          sxx += u * u
          syy += v * v
          sxy += u * v
          count++
        }
      }
      const m = count || n
      const mx = sx / m
      const my = sy / m
      const vx = sxx / m - mx * mx
      const vy = syy / m - my * my
      const cov = sxy / m - mx * my
      total += ((2 * mx * my + C1) * (2 * cov + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2))
      windows++
    }
  }
  return total / windows
}
