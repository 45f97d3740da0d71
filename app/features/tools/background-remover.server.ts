// Background remover: a salient-object matte (ISNet general-use when installed, else U²-Netp),
// resized to the full image and refined there (specks, holes, edges). Answers a lossless RGBA PNG
// at the original size, or the cutout flattened onto a colour for pages without JavaScript and API clients.
import sharp from 'sharp'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { refineMatte, softBandReach } from './models/matte.server'
import { upscaleMatteExact, upscaleMatteNearEdges } from './models/matte-upscale.server'
import { assertRgbaImage, encodePng, toChwTensor } from './models/pixels.server'
import { cutoutAlpha, startPng } from './models/png.server'
import { isModelInstalled, runModel } from './models/registry.server'

const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const
const IMAGENET_STD = [0.229, 0.224, 0.225] as const

interface Segmenter {
  id: string
  size: number
  /** Per-channel scale and offset from bytes to the network's input, given the image's brightest byte. */
  normalise(maxByte: number): { scale: [number, number, number]; offset: [number, number, number] }
}

const U2NETP: Segmenter = {
  id: 'u2netp',
  size: 320,
  // rembg's preprocessing: divide by the image's maximum, then ImageNet mean and std.
  normalise: (maxByte) => ({
    scale: [0, 1, 2].map((k) => 1 / (Math.max(1, maxByte) * IMAGENET_STD[k])) as [number, number, number],
    offset: [0, 1, 2].map((k) => -IMAGENET_MEAN[k] / IMAGENET_STD[k]) as [number, number, number],
  }),
}

const ISNET: Segmenter = {
  id: 'isnet-general-use',
  size: 1024,
  normalise: () => ({ scale: [1 / 255, 1 / 255, 1 / 255], offset: [-0.5, -0.5, -0.5] }),
}

export function activeSegmenter(): Segmenter {
  return isModelInstalled(ISNET.id) ? ISNET : U2NETP
}

/** The model's matte at its own resolution, min-max normalised to 0..255 (the benchmark times it alone as the model-only pipeline). */
export async function predictMatte(image: RgbaImage, segmenter: Segmenter): Promise<{ matte: Buffer; modelMs: number }> {
  const { data: rgb } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .removeAlpha()
    .resize(segmenter.size, segmenter.size, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true })
  let maxByte = 0
  for (let i = 0; i < rgb.length; i++) if (rgb[i] > maxByte) maxByte = rgb[i]
  const tensor = toChwTensor({ data: rgb, width: segmenter.size, height: segmenter.size, channels: 3 }, segmenter.normalise(maxByte))
  const { output, ms } = await runModel(segmenter.id, tensor.data, tensor.dims)
  const values = output.data as Float32Array
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < values.length; i++) {
    if (values[i] < lo) lo = values[i]
    if (values[i] > hi) hi = values[i]
  }
  const range = hi - lo || 1
  const matte = Buffer.allocUnsafe(values.length)
  for (let i = 0; i < values.length; i++) matte[i] = Math.round(((values[i] - lo) / range) * 255)
  return { matte, modelMs: ms }
}

/** A copy of `bytes` in memory the image threads share. */
function sharedCopy(bytes: Buffer): Buffer {
  const copy = Buffer.from(new SharedArrayBuffer(bytes.length))
  bytes.copy(copy)
  return copy
}

/** The model's matte, the matte refined at full size, the PNG encoded. */
export type RemovePhase = 'matte' | 'refined' | 'encoded'

export interface RemoveOptions {
  background?: string
  signal?: AbortSignal
  progress?: PhaseProgress<RemovePhase>
}

/** The refined matte at full size, unencoded: for a caller that composes the output itself (cutout-output.server.ts). */
export interface CutoutMatte {
  alpha: Uint8Array
  modelMs: number
}

export async function removeBackground(image: RgbaImage, options: RemoveOptions & { matteOnly: true }): Promise<CutoutMatte>
export async function removeBackground(image: RgbaImage, options?: RemoveOptions): Promise<ToolOutput>
export async function removeBackground(image: RgbaImage, options: RemoveOptions & { matteOnly?: boolean } = {}): Promise<ToolOutput | CutoutMatte> {
  assertRgbaImage(image)
  const progress = options.progress ?? (() => {})
  // A colour sharp reads (a preset name or #hex), already checked by the tool's runner.
  const background = options.background ?? null
  const segmenter = activeSegmenter()
  progress('matte', 0)
  const matteJob = predictMatte(image, segmenter)
  // While the model runs in its thread, the picture is copied where the image threads that encode
  // a transparent cutout read it (else each band of rows would be copied to them after the matte is refined).
  const picture = background || options.matteOnly ? null : sharedCopy(image.data)
  const { matte, modelMs } = await matteJob
  progress('matte', 1)
  options.signal?.throwIfAborted()

  const upscale = Math.max(image.width, image.height) / segmenter.size
  const refinement = { minComponentShare: 0.1, edgeSigma: Math.min(4, Math.max(0.6, upscale * 0.5)), backdropDistance: 24 }
  // Back to the full size with 'fill' (the model saw a stretched square); cubic keeps the ramp smooth.
  // Exact only near the outline, where refineMatte reads it; without any foreground it returns the matte as it is.
  const modelMatte = { data: matte, width: segmenter.size, height: segmenter.size, channels: 1 } as const
  const upscaled = await upscaleMatteNearEdges(modelMatte, image.width, image.height, softBandReach(refinement))
  const { data: soft, mask } = upscaled.hasForeground ? upscaled : { data: await upscaleMatteExact(modelMatte, image.width, image.height), mask: undefined }
  let bytes: Buffer
  if (options.matteOnly) {
    const alpha = await refineMatte(soft, image.data, image.width, image.height, refinement, { mask })
    progress('refined', 1)
    return { alpha, modelMs }
  }
  if (background) {
    const alpha = await refineMatte(soft, image.data, image.width, image.height, refinement, { mask })
    progress('refined', 1)
    const cutout = Buffer.from(image.data)
    for (let p = 0, i = 3; p < alpha.length; p++, i += 4) cutout[i] = cutoutAlpha(alpha[p], cutout[i])
    const flat = await sharp(cutout, { raw: { width: image.width, height: image.height, channels: 4 } })
      .flatten({ background })
      .raw()
      .toBuffer()
    bytes = await encodePng({ data: flat, width: image.width, height: image.height, channels: 3 })
  } else {
    // Encoded straight from the picture and the matte (the encoder applies the picture's own alpha):
    // no RGBA copy, and each band of rows is written as soon as the refinement has finished it.
    const png = startPng({ data: picture ?? image.data, width: image.width, height: image.height, channels: 4 }, { alpha: soft })
    await refineMatte(soft, image.data, image.width, image.height, refinement, { rowsFinal: png.rowsReady, mask })
    progress('refined', 1)
    bytes = await png.finish()
  }
  progress('encoded', 1)
  return { bytes, contentType: 'image/png', width: image.width, height: image.height, modelMs }
}
