// Pixel plumbing shared by the tools: raw buffers in and out of sharp, tensors in and out of
// onnxruntime, and the lossless PNG every tool answers with.
import { once } from 'node:events'
import zlib from 'node:zlib'
import sharp from 'sharp'
import type { RgbaImage } from '../image'

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
  const d = image.data
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 255) return false
  return true
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
/** PNG colour type by channel count: grey, RGB, RGBA. */
const PNG_COLOUR_TYPE: Record<number, number> = { 1: 0, 3: 2, 4: 6 }
/** Each IDAT chunk holds at most this much of the compressed stream. */
const IDAT_BYTES = 256 * 1024
/** Rows are filtered and handed to zlib about this many bytes at a time. */
const STRIP_BYTES = 1024 * 1024
const PNG_FILTER_UP = 2
/**
 * zlib level for the image data. With the Up filter, level 2 is within about 10% of the size of
 * libvips' adaptive filtering at level 3, at a fraction of its time (figures in docs/decisions/037).
 */
const PNG_DEFLATE_LEVEL = 2

function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))))
  return Buffer.concat([head, data, crc])
}

/**
 * PNG scanlines `from`..`to` (exclusive), each with the Up filter (the byte above subtracted),
 * keeping the first `outChannels` of every pixel. Up is one subtraction a byte, yet it takes most
 * of what an adaptive per-row choice gains on photos; the adaptive choice costs more than deflate.
 */
function upFilteredScanlines(image: RawImage, outChannels: number, from: number, to: number): Buffer {
  const { data, width, channels } = image
  const rowIn = width * channels
  const rowOut = width * outChannels
  const out = Buffer.allocUnsafe((rowOut + 1) * (to - from))
  let o = 0
  for (let y = from; y < to; y++) {
    out[o++] = PNG_FILTER_UP
    const row = y * rowIn
    if (outChannels === channels) {
      if (y === 0) o += data.copy(out, o, 0, rowIn)
      else for (let i = row, end = row + rowIn; i < end; i++) out[o++] = data[i] - data[i - rowIn]
    } else {
      // Colour without alpha: three of every four bytes.
      for (let i = row, end = row + rowIn; i < end; i += channels) {
        if (y === 0) {
          out[o++] = data[i]
          out[o++] = data[i + 1]
          out[o++] = data[i + 2]
        } else {
          out[o++] = data[i] - data[i - rowIn]
          out[o++] = data[i + 1] - data[i + 1 - rowIn]
          out[o++] = data[i + 2] - data[i + 2 - rowIn]
        }
      }
    }
  }
  return out
}

/**
 * Lossless 8-bit PNG without metadata (no EXIF, ICC or XMP chunk is ever written, so nothing of
 * the upload's metadata survives); the alpha channel is dropped when every pixel is opaque.
 * Written here rather than by libvips: its adaptive filtering took most of a 12 MP tool run's
 * time outside the model. Rows are filtered a strip at a time and streamed through zlib on the
 * thread pool, so neither a whole filtered copy of the image is held nor the event loop blocked.
 */
export async function encodePng(image: RawImage, options: { keepAlpha?: boolean } = {}): Promise<Buffer> {
  const dropAlpha = image.channels === 4 && !options.keepAlpha && isOpaque({ data: image.data, width: image.width, height: image.height })
  const outChannels = dropAlpha ? 3 : image.channels
  const header = Buffer.alloc(13)
  header.writeUInt32BE(image.width, 0)
  header.writeUInt32BE(image.height, 4)
  header[8] = 8 // bit depth
  header[9] = PNG_COLOUR_TYPE[outChannels]!
  // compression, filter method and interlace stay 0
  const parts = [PNG_SIGNATURE, pngChunk('IHDR', header)]
  const deflater = zlib.createDeflate({ level: PNG_DEFLATE_LEVEL, memLevel: 9, chunkSize: IDAT_BYTES })
  deflater.on('data', (compressed: Buffer) => parts.push(pngChunk('IDAT', compressed)))
  const finished = once(deflater, 'end')
  const stripRows = Math.max(1, Math.floor(STRIP_BYTES / (image.width * outChannels + 1)))
  for (let y = 0; y < image.height; y += stripRows) {
    if (!deflater.write(upFilteredScanlines(image, outChannels, y, Math.min(image.height, y + stripRows)))) await once(deflater, 'drain')
  }
  deflater.end()
  await finished
  parts.push(pngChunk('IEND', new Uint8Array(0)))
  return Buffer.concat(parts)
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
