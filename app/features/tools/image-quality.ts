// Image quality measures shared by the enhancer's tests and its denoise benchmark.
import type { RgbaImage } from './image'

/** Peak signal-to-noise ratio over the RGB channels of two images of the same size, in dB. */
export function psnr(a: RgbaImage, b: RgbaImage): number {
  let sum = 0
  let n = 0
  for (let i = 0; i < a.data.length; i += 4) {
    for (let k = 0; k < 3; k++) {
      const d = a.data[i + k] - b.data[i + k]
      sum += d * d
      n++
    }
  }
  return 10 * Math.log10((255 * 255) / (sum / n))
}

/** Mean absolute difference between neighbouring pixels (green channel): how much fine detail there is. */
export function fineDetail(image: RgbaImage): number {
  let sum = 0
  let n = 0
  for (let y = 0; y < image.height - 1; y++) {
    for (let x = 0; x < image.width - 1; x++) {
      const i = (y * image.width + x) * 4 + 1
      sum += Math.abs(image.data[i] - image.data[i + 4]) + Math.abs(image.data[i] - image.data[i + image.width * 4])
      n += 2
    }
  }
  return sum / n
}
