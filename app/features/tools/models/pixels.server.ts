// Pixel plumbing shared by the tools: raw buffers in and out of sharp, tensors in and out of
// onnxruntime; the lossless PNG every tool answers with is written by png.server.ts.
import sharp from 'sharp'
import type { RgbaImage } from '../image'
import { isOpaqueRgba } from './png.server'

export { encodePng } from './png.server'

export type Channels = 1 | 3 | 4
export type Kernel = 'nearest' | 'linear' | 'cubic' | 'mitchell' | 'lanczos2' | 'lanczos3'

export interface RawImage {
  data: Buffer
  width: number
  height: number
  channels: Channels
}

export function rawOf(image: RgbaImage): RawImage {
  return { data: image.data, width: image.width, height: image.height, channels: 4 }
}

export function assertRgbaImage(image: RgbaImage): void {
  const { width, height, data } = image
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TypeError(`Image dimensions must be positive integers (got ${width}×${height})`)
  }
  if (data.length !== width * height * 4) {
    throw new TypeError(`RGBA buffer holds ${data.length} bytes, expected ${width * height * 4} for ${width}×${height}`)
  }
}

export function isOpaque(image: RgbaImage): boolean {
  return isOpaqueRgba(image.data)
}

/** Resizes a raw buffer; `fill` ignores the aspect ratio, as the segmentation models need. */
export async function resizeRaw(
  image: RawImage,
  width: number,
  height: number,
  kernel: Kernel = 'lanczos3',
): Promise<RawImage> {
  let pipeline = sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } }).resize(width, height, {
    fit: 'fill',
    kernel,
  })
  // sharp widens one channel to sRGB unless told to stay grey.
  if (image.channels === 1) pipeline = pipeline.toColourspace('b-w')
  const { data, info } = await pipeline
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height, channels: info.channels as Channels }
}

/** Copies one region out of a raw buffer (no resampling). */
export function cropRaw(image: RawImage, left: number, top: number, width: number, height: number): RawImage {
  const c = image.channels
  const out = Buffer.allocUnsafe(width * height * c)
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * image.width + left) * c
    image.data.copy(out, y * width * c, from, from + width * c)
  }
  return { data: out, width, height, channels: c }
}

export interface TensorOptions {
  /** Channel order of the tensor: RGB (most models) or BGR (YuNet). */
  order?: 'rgb' | 'bgr'
  /** value = byte * scale[c] + offset[c], per tensor channel in RGB order. */
  scale?: readonly [number, number, number]
  offset?: readonly [number, number, number]
  /** Tensor size when padding (bottom and right, with zeros). */
  width?: number
  height?: number
}

/** Packs the colour channels of a raw image into a float32 NCHW tensor (batch 1). */
export function toChwTensor(image: RawImage, options: TensorOptions = {}): { data: Float32Array; dims: number[] } {
  const tw = options.width ?? image.width
  const th = options.height ?? image.height
  const scale = options.scale ?? [1, 1, 1]
  const offset = options.offset ?? [0, 0, 0]
  const plane = tw * th
  const out = new Float32Array(3 * plane)
  const src = image.data
  const c = image.channels
  const bgr = options.order === 'bgr'
  for (let k = 0; k < 3; k++) {
    const srcChannel = c === 1 ? 0 : k
    const dest = (bgr ? 2 - k : k) * plane
    const s = scale[k]
    const o = offset[k]
    for (let y = 0; y < image.height; y++) {
      let i = y * image.width * c + srcChannel
      let j = dest + y * tw
      for (let x = 0; x < image.width; x++, i += c, j++) out[j] = src[i] * s + o
    }
  }
  return { data: out, dims: [1, 3, th, tw] }
}

/** Smooth 0..1 ramp (Hermite), used for feathered mask edges. */
export function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - edge0) / (edge1 - edge0)))
  return t * t * (3 - 2 * t)
}

export interface Ellipse {
  cx: number
  cy: number
  rx: number
  ry: number
}

/**
 * Blends `patch` (same channels as `target`, placed at left/top) into `target` through a feathered
 * ellipse: full strength inside `inner` of the radius, fading to nothing at the rim. Colour only;
 * the target's alpha is left alone.
 */
export function blendThroughEllipse(target: RawImage, patch: RawImage, left: number, top: number, ellipse: Ellipse, inner = 0.8): void {
  const c = target.channels
  const colourChannels = c === 4 ? 3 : c
  for (let y = 0; y < patch.height; y++) {
    const ty = top + y
    if (ty < 0 || ty >= target.height) continue
    const dy = (ty + 0.5 - ellipse.cy) / ellipse.ry
    for (let x = 0; x < patch.width; x++) {
      const tx = left + x
      if (tx < 0 || tx >= target.width) continue
      const dx = (tx + 0.5 - ellipse.cx) / ellipse.rx
      const r = Math.sqrt(dx * dx + dy * dy)
      if (r >= 1) continue
      const w = 1 - smoothstep(inner, 1, r)
      const ti = (ty * target.width + tx) * c
      const pi = (y * patch.width + x) * patch.channels
      for (let k = 0; k < colourChannels; k++) {
        target.data[ti + k] = Math.round(target.data[ti + k] * (1 - w) + patch.data[pi + k] * w)
      }
    }
  }
}

/** `rgb` (an enlarged picture) with `image`'s alpha channel enlarged to its size by a plain cubic resize, not by a model. */
export async function withEnlargedAlpha(rgb: RawImage, image: RgbaImage): Promise<RawImage> {
  const alpha = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .extractChannel(3)
    .resize(rgb.width, rgb.height, { fit: 'fill', kernel: 'cubic' })
    .toColourspace('b-w')
    .raw()
    .toBuffer()
  const rgba = Buffer.allocUnsafe(rgb.width * rgb.height * 4)
  for (let p = 0, i = 0, j = 0; p < alpha.length; p++, i += 3, j += 4) {
    rgba[j] = rgb.data[i]
    rgba[j + 1] = rgb.data[i + 1]
    rgba[j + 2] = rgb.data[i + 2]
    rgba[j + 3] = alpha[p]
  }
  return { data: rgba, width: rgb.width, height: rgb.height, channels: 4 }
}
