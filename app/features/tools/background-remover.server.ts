// Background remover: a salient-object matte (the model the request chose, models/segmenters.server.ts),
// resized to the full image and refined there (specks, parts out of focus, holes, edges). Answers a lossless RGBA PNG
// at the original size, or the cutout flattened onto a colour for pages without JavaScript and API clients.
import sharp from 'sharp'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { refineMatte, softBandReach, type MatteRefinement, type MatteRefinementLevel } from './models/matte.server'
import { upscaleMatteExact, upscaleMatteNearEdges } from './models/matte-upscale.server'
import { assertRgbaImage, encodePng, toChwTensor } from './models/pixels.server'
import { cutoutAlpha, sharedCopy, startPng } from './models/png.server'
import { runModel } from './models/registry.server'
import type { ModelChoice } from './models/model-choices'
import { outputToMatte, segmenterFor, type Segmenter } from './models/segmenters.server'

/** The best installed model (the `auto` choice). */
export function activeSegmenter(): Segmenter {
  return segmenterFor('auto').segmenter
}

/**
 * The model's matte at its own input size (`width` × `height`), as 0..255 the way its reference
 * post-processes it (the benchmark times it alone as the model-only pipeline).
 */
export async function predictMatte(
  image: RgbaImage,
  segmenter: Segmenter,
): Promise<{ matte: Buffer; width: number; height: number; modelMs: number }> {
  const size = segmenter.inputSize(image.width, image.height)
  const { data: rgb } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .removeAlpha()
    .resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true })
  let maxByte = 0
  for (let i = 0; i < rgb.length; i++) if (rgb[i] > maxByte) maxByte = rgb[i]
  const tensor = toChwTensor({ data: rgb, width: size.width, height: size.height, channels: 3 }, segmenter.normalise(maxByte))
  const { output, ms } = await runModel(segmenter.id, tensor.data, tensor.dims)
  const [height, width] = output.dims.slice(-2)
  return { matte: outputToMatte(output.data as Float32Array, segmenter.output), width, height, modelMs: ms }
}

/** The model's matte, the matte refined at full size, the PNG encoded. */
export type RemovePhase = 'matte' | 'refined' | 'encoded'

/**
 * The refinement the remover applies unless told otherwise: classic, then sampling matting in the
 * uncertain band. On the quality benchmark with U²-Netp it lowered colour bleed by a third and the
 * edge band's alpha error by a tenth (docs/decisions/128; 090 for the guided and blur-fusion levels).
 */
export const DEFAULT_REFINEMENT: MatteRefinementLevel = 'sampled'

/**
 * Above this many pixels the default is `classic`: the sampling step's cost grows with the band, and
 * the band with the enlargement, so past about 6 MP it takes the remover beyond 1.5× its model-only
 * pipeline (issue 20 item 6; measured on a quiet two-core machine, decision 151).
 */
export const SAMPLED_EDGES_MAX_PIXELS = 6_000_000

/** The refinement a picture of this size gets when the caller names none. */
export function defaultRefinementFor(width: number, height: number): MatteRefinementLevel {
  return width * height > SAMPLED_EDGES_MAX_PIXELS ? 'classic' : DEFAULT_REFINEMENT
}

/** A part of the matte under this share of the largest part's area is a speck, and is dropped. */
export const SPECK_SHARE = 0.1

/** The refinement's settings for a matte enlarged `upscale` times, at a level (other than 'model'). */
function refinementAt(level: MatteRefinementLevel, upscale: number): MatteRefinement {
  const classic = {
    minComponentShare: SPECK_SHARE,
    edgeSigma: Math.min(4, Math.max(0.6, upscale * 0.5)),
    backdropDistance: 24,
    // The model's edge is about `upscale` px off, so each outline pixel's window reaches that far. A
    // part under 0.4 of the sharpest one's sharpness is the backdrop's: on 80 benchmark scenes 0.4
    // dropped backdrop parts only, 0.5 a thin part of one subject too (decision 153).
    focus: { reach: Math.max(3, Math.round(upscale)), minShare: 0.4 },
  }
  if (level === 'classic' || level === 'model') return classic
  // The band follows the enlargement (the model's edge is about that many px uncertain): 0.75× measured best of 0.5, 0.75, 1, 2 and 3× (decision 128).
  // What the matte holds the step softens but keeps (decision 168: thin-part recall 0.615 → 0.668 for 0.0002 more MAE).
  if (level === 'sampled') {
    return { ...classic, edgeSampling: { band: Math.max(2, Math.round(upscale * 0.75)), contrast: 40, minAlpha: 0.3, keepsMask: true } }
  }
  // The guided filter's radius follows the enlargement (the matte's edge is that many px soft); eps 0.01 gave the lowest gradient error of 0.001, 0.01 and 0.05 (decision 090).
  const guidedFilter = { radius: Math.max(2, Math.round(upscale * 1.5)), eps: 0.01 }
  if (level === 'guided') return { ...classic, guidedFilter }
  // Blur-fusion's radii: 5 cells of 8 px (about the paper's 90 px box) and the paper's 6 px box (radius 3).
  return { ...classic, guidedFilter, foregroundColours: { cellRadius: 5, radius: 3 } }
}

export interface RemoveOptions {
  background?: string
  model?: ModelChoice
  /** A model given directly (the benchmarks time each installed one); else the `model` choice's. */
  segmenter?: Segmenter
  signal?: AbortSignal
  progress?: PhaseProgress<RemovePhase>
  /** The matte refinement (the quality benchmark compares them); defaultRefinementFor the picture otherwise. */
  refinement?: MatteRefinementLevel
}

/** Which model made the cutout, and a note when the choice asked for could not be honoured. */
interface MadeBy {
  model: string
  note: string | null
}

/**
 * What the run made besides its output, for a correction to re-render from (decision 157): the
 * model's own matte at its size, the refined matte at full size, and the picture's colours with
 * what the refinement unmixed from the background (RGBA; its alpha is the photo's own).
 */
export interface MatteMaterial {
  modelMatte: { data: Uint8Array; width: number; height: number }
  alpha: Uint8Array
  colours: Buffer
}

/** The refined matte at full size, unencoded: for a caller that composes the output itself (cutout-output.server.ts). */
export interface CutoutMatte extends MadeBy, MatteMaterial {
  modelMs: number
}

/**
 * A cutout flattened on a colour as the remover answers it: each pixel's alpha from the matte
 * (and the photo's own alpha), put over the colour, encoded as an RGB PNG. `colours` is changed.
 */
export async function flattenOnColour(colours: Buffer, alpha: Uint8Array, width: number, height: number, background: string): Promise<Buffer> {
  for (let p = 0, i = 3; p < alpha.length; p++, i += 4) colours[i] = cutoutAlpha(alpha[p], colours[i])
  const flat = await sharp(colours, { raw: { width, height, channels: 4 } }).flatten({ background }).raw().toBuffer()
  return encodePng({ data: flat, width, height, channels: 3 })
}

/** A transparent cutout as the remover answers it: the colours with the matte as alpha (docs/decisions/068). */
export function encodeCutoutPng(colours: Buffer, alpha: Uint8Array, width: number, height: number): Promise<Buffer> {
  return encodePng({ data: colours, width, height, channels: 4 }, { alpha })
}

export async function removeBackground(image: RgbaImage, options: RemoveOptions & { matteOnly: true }): Promise<CutoutMatte>
export async function removeBackground(image: RgbaImage, options?: RemoveOptions): Promise<ToolOutput & MadeBy & { material: MatteMaterial }>
export async function removeBackground(
  image: RgbaImage,
  options: RemoveOptions & { matteOnly?: boolean } = {},
): Promise<(ToolOutput & MadeBy & { material: MatteMaterial }) | CutoutMatte> {
  assertRgbaImage(image)
  const progress = options.progress ?? (() => {})
  // A colour sharp reads (a preset name or #hex), already checked by the tool's runner.
  const background = options.background ?? null
  const { segmenter, note } = options.segmenter ? { segmenter: options.segmenter, note: null } : segmenterFor(options.model)
  progress('matte', 0)
  const matteJob = predictMatte(image, segmenter)
  // While the model runs in its thread, the picture is copied where the image threads that encode
  // a transparent cutout read it (else each band of rows would be copied to them after the matte is refined).
  const picture = background || options.matteOnly ? null : sharedCopy(image.data)
  const { matte, width: matteWidth, height: matteHeight, modelMs } = await matteJob
  progress('matte', 1)
  options.signal?.throwIfAborted()

  const upscale = Math.max(image.width / matteWidth, image.height / matteHeight)
  const level = options.refinement ?? defaultRefinementFor(image.width, image.height)
  const refinement = refinementAt(level, upscale)
  // Back to the full size with 'fill' (the model saw a stretched square); cubic keeps the ramp smooth.
  // Exact only near the outline, where refineMatte reads it; without any foreground it returns the matte as it is.
  const modelMatte = { data: matte, width: matteWidth, height: matteHeight, channels: 1 } as const
  // The 'model' level keeps the enlarged matte as it is: exact everywhere.
  const upscaled =
    level === 'model'
      ? { hasForeground: false }
      : await upscaleMatteNearEdges(modelMatte, image.width, image.height, softBandReach(refinement))
  const { data: soft, mask } =
    'data' in upscaled && upscaled.hasForeground ? upscaled : { data: await upscaleMatteExact(modelMatte, image.width, image.height), mask: undefined }
  const refine = (colours: Buffer | undefined, rowsFinal?: (upTo: number) => void) =>
    level === 'model' ? Promise.resolve(soft) : refineMatte(soft, image.data, image.width, image.height, refinement, { mask, colours, rowsFinal })
  const modelMatteKept = { data: matte, width: matteWidth, height: matteHeight }
  let bytes: Buffer
  let material: MatteMaterial
  if (options.matteOnly) {
    // The composed outputs get the unmixed colours too, as the plain ones do.
    const colours = Buffer.from(image.data)
    const alpha = await refine(colours)
    progress('refined', 1)
    return { alpha, colours, modelMatte: modelMatteKept, modelMs, model: segmenter.id, note }
  }
  if (background) {
    const cutout = Buffer.from(image.data)
    const alpha = await refine(cutout)
    progress('refined', 1)
    // The colours as unmixed, before flattening writes the matte into their alpha.
    material = { modelMatte: modelMatteKept, alpha, colours: Buffer.from(cutout) }
    bytes = await flattenOnColour(cutout, alpha, image.width, image.height, background)
  } else {
    // Encoded straight from the picture and the matte (the encoder applies the picture's own alpha):
    // no RGBA copy, and each band of rows is written as soon as the refinement has finished it.
    // The same encoding as encodeCutoutPng, streamed.
    const colours = picture ?? Buffer.from(image.data)
    const png = startPng({ data: colours, width: image.width, height: image.height, channels: 4 }, { alpha: soft })
    await refine(colours, png.rowsReady)
    progress('refined', 1)
    bytes = await png.finish()
    material = { modelMatte: modelMatteKept, alpha: soft, colours }
  }
  progress('encoded', 1)
  return { bytes, contentType: 'image/png', width: image.width, height: image.height, modelMs, model: segmenter.id, note, material }
}
