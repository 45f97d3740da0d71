// Image enhancer: Real-ESRGAN ×4, then resampled to the output scale the size cap allows.
// The model's cost grows with input pixels (about 15 µs each on 2 cores), so the pixels it sees
// are capped too: a larger picture is reduced to the budget first, enhanced, and brought to its
// output size from there (docs/decisions/011-enhancer-scale-and-budget.md; denoise strength: 014).
import sharp from 'sharp'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { assertRgbaImage, encodePng, isOpaque, resizeRaw, withEnlargedAlpha, type RawImage } from './models/pixels.server'
import { acquireSrModel, DEFAULT_DENOISE } from './models/denoise-models.server'
import { upscale4x } from './models/super-resolution.server'

/** The largest output the enhancer writes (pixels). */
export const OUTPUT_CAP_PIXELS = 16_000_000
/** The most input pixels the model runs on per request (about 15 s on 2 idle cores). */
export const MODEL_INPUT_BUDGET = 1_000_000
const SCALES = [4, 3, 2] as const

export interface EnhancementPlan {
  scale: number
  outputWidth: number
  outputHeight: number
  /** Size the model runs at (the input, or the input reduced to the budget). */
  modelWidth: number
  modelHeight: number
}

export function planEnhancement(width: number, height: number): EnhancementPlan {
  const pixels = width * height
  const scale = SCALES.find((s) => pixels * s * s <= OUTPUT_CAP_PIXELS) ?? 1
  const reduce = pixels > MODEL_INPUT_BUDGET ? Math.sqrt(MODEL_INPUT_BUDGET / pixels) : 1
  return {
    scale,
    outputWidth: width * scale,
    outputHeight: height * scale,
    modelWidth: Math.max(1, Math.round(width * reduce)),
    modelHeight: Math.max(1, Math.round(height * reduce)),
  }
}

export interface EnhanceOptions {
  signal?: AbortSignal
  /** 0 (keep noise and grain: the weak-denoise model) to 1 (the general model), in steps of 0.1. */
  denoise?: number
  /** 'loading' the model, 'enhancing' tile by tile, 'encoding' the PNG: each from 0 to 1. */
  progress?: PhaseProgress<EnhancePhase>
}

export type EnhancePhase = 'loading' | 'enhancing' | 'encoding'

export async function enhanceImage(
  image: RgbaImage,
  options: EnhanceOptions = {},
): Promise<ToolOutput & { scale: number; denoise: number; note: string | null }> {
  assertRgbaImage(image)
  const plan = planEnhancement(image.width, image.height)
  const rgb = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .removeAlpha()
    .raw()
    .toBuffer()
  let modelInput: RawImage = { data: rgb, width: image.width, height: image.height, channels: 3 }
  if (plan.modelWidth !== image.width || plan.modelHeight !== image.height) {
    modelInput = await resizeRaw(modelInput, plan.modelWidth, plan.modelHeight, 'lanczos3')
  }
  // A run already past its time limit should not build a blended model first.
  options.signal?.throwIfAborted()
  const progress = options.progress ?? (() => {})
  progress('loading', 0)
  const sr = await acquireSrModel(options.denoise ?? DEFAULT_DENOISE)
  progress('loading', 1)
  let upscaled: Awaited<ReturnType<typeof upscale4x>>
  try {
    upscaled = await upscale4x(modelInput, {
      signal: options.signal,
      model: sr.model,
      onTile: (done, total) => progress('enhancing', done / total),
    })
  } finally {
    sr.done()
  }
  progress('encoding', 0)
  let result = upscaled.image
  if (result.width !== plan.outputWidth || result.height !== plan.outputHeight) {
    result = await resizeRaw(result, plan.outputWidth, plan.outputHeight, 'lanczos3')
  }

  let bytes: Buffer
  if (isOpaque(image)) {
    bytes = await encodePng(result)
  } else {
    // Transparency is kept: the alpha channel is enlarged with a plain resize, not by the model.
    bytes = await encodePng(await withEnlargedAlpha(result, image), { keepAlpha: true })
  }
  progress('encoding', 1)
  return {
    bytes,
    contentType: 'image/png',
    width: plan.outputWidth,
    height: plan.outputHeight,
    modelMs: upscaled.modelMs,
    scale: plan.scale,
    denoise: sr.denoise,
    note: sr.note,
  }
}
