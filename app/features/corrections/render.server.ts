// Re-rendering a result from what its run kept and the user's corrections (decision 157): no
// model runs. The cutout's matte goes through the part decisions, the brush mask, grow/shrink and
// feather, then the remover's own rendering (renderCutout) with every option the run had; the
// blurrer's picture through its own renderBlur with the given boxes at the run's radius.
import zlib from 'node:zlib'
import { promisify } from 'node:util'
import sharp from 'sharp'
import type { RgbaImage } from '~/features/tools/image'
import { decodeToRgba } from '~/features/tools/upload.server'
import { applyPartDecisions, blendMask, findParts, growMatte, type MaskLayer, type PartPixels } from './alpha-rules'
import type { CutoutSourceMeta, FacesSourceMeta } from './keep.server'
import { unpack } from './pack.server'
import type { Box, EdgeSettings, PartDecision } from './types'
import type { CutoutLayout } from '~/features/tools/runners/types'

const inflate = promisify(zlib.inflate)

/** The feather's blur: sigma is half the feather's pixels (as the blurrer's radius). */
export const FEATHER_SIGMA_PER_PX = 0.5

export interface CutoutSource {
  meta: CutoutSourceMeta
  upload: Buffer
  backgroundImage: Buffer | null
  modelMatte: Buffer
  /** The refined matte at full size. */
  alpha: Uint8Array
  changedAt: Uint32Array
  changedRgb: Buffer
}

export interface FacesSource {
  meta: FacesSourceMeta
  upload: Buffer
}

export async function openCutoutSource(packed: Buffer): Promise<CutoutSource> {
  const { meta, sections } = unpack<CutoutSourceMeta>(packed)
  const [alpha, at, rgb] = await Promise.all([inflate(sections.alpha!), inflate(sections.changedAt!), inflate(sections.changedRgb!)])
  // A copy aligned for Uint32Array (the inflated buffer may sit at any offset of a pool).
  const changedAt = new Uint32Array(at.byteLength / 4)
  Buffer.from(changedAt.buffer).set(at)
  return {
    meta,
    upload: sections.upload!,
    backgroundImage: sections.background ?? null,
    modelMatte: sections.model!,
    alpha,
    changedAt,
    changedRgb: rgb,
  }
}

export function openFacesSource(packed: Buffer): FacesSource {
  const { meta, sections } = unpack<FacesSourceMeta>(packed)
  return { meta, upload: sections.upload! }
}

/** The photo decoded exactly as the run decoded it (runRaster's decode). */
export function decodePhoto(upload: Buffer): Promise<RgbaImage> {
  return decodeToRgba(upload)
}

/** The photo's colours with what the refinement unmixed put back (decontamination on). */
export function unmixedColours(photo: RgbaImage, source: Pick<CutoutSource, 'changedAt' | 'changedRgb'>): Buffer {
  const colours = Buffer.from(photo.data)
  const { changedAt, changedRgb } = source
  for (let k = 0; k < changedAt.length; k++) {
    const i = changedAt[k] * 4
    colours[i] = changedRgb[k * 3]
    colours[i + 1] = changedRgb[k * 3 + 1]
    colours[i + 2] = changedRgb[k * 3 + 2]
  }
  return colours
}

/**
 * A cutout's source opened for correcting: decoded, inflated, its unmixed colours put back. An
 * editor applies corrections one after another, so the last one opened is kept in memory (one,
 * for a short while): the next correction of the same result skips the decode (decision 157).
 */
export interface OpenedCutout {
  jobId: string
  source: CutoutSource
  photo: RgbaImage
  /** The colours with decontamination on; read only. */
  unmixed: Buffer
  /** The model's matte at full size and its parts, once asked for. */
  modelParts?: Promise<{ model: Buffer; parts: PartPixels[] }>
}

/** How long the last opened cutout stays in memory without a correction. */
export const OPENED_KEPT_MS = 5 * 60_000
let lastOpened: { opened: OpenedCutout; timer: NodeJS.Timeout } | null = null

function forgetOpened(): void {
  if (lastOpened) clearTimeout(lastOpened.timer)
  lastOpened = null
}

/** The job's cutout source opened (from memory when it was the last one opened). The caller has checked the owner. */
export async function openCutout(jobId: string, packed: () => Promise<Buffer | null>): Promise<OpenedCutout | null> {
  if (lastOpened?.opened.jobId !== jobId) {
    const bytes = await packed()
    if (!bytes) return null
    const source = await openCutoutSource(bytes)
    const photo = await decodePhoto(source.upload)
    forgetOpened()
    lastOpened = { opened: { jobId, source, photo, unmixed: unmixedColours(photo, source) }, timer: setTimeout(forgetOpened, OPENED_KEPT_MS) }
  }
  lastOpened!.timer.refresh().unref()
  return lastOpened!.opened
}

/** The model's matte at full size (the run's deterministic enlargement) and its parts. */
export function modelParts(opened: OpenedCutout): Promise<{ model: Buffer; parts: PartPixels[] }> {
  opened.modelParts ??= (async () => {
    const { upscaleMatteExact } = await import('~/features/tools/models/matte-upscale.server')
    const { source } = opened
    const { width, height, modelWidth, modelHeight } = source.meta
    const model = await upscaleMatteExact({ data: source.modelMatte, width: modelWidth, height: modelHeight, channels: 1 }, width, height)
    return { model, parts: findParts(model, source.alpha, width, height) }
  })()
  return opened.modelParts
}

export interface CutoutCorrections {
  edges: EdgeSettings
  parts: Record<string, PartDecision>
  /** The brush mask's strokes at full size; null: none. */
  mask: MaskLayer | null
}

/** The refined matte with the corrections applied: parts, then the mask, then grow/shrink, then feather. */
export async function correctedAlpha(opened: OpenedCutout, corrections: CutoutCorrections): Promise<Uint8Array> {
  const { source } = opened
  const { width, height } = source.meta
  let alpha: Uint8Array = Buffer.from(source.alpha)
  if (Object.keys(corrections.parts).length > 0) {
    const { model, parts } = await modelParts(opened)
    applyPartDecisions(alpha, model, parts, corrections.parts)
  }
  if (corrections.mask) blendMask(alpha, width, corrections.mask)
  if (corrections.edges.grow !== 0) growMatte(alpha, width, height, corrections.edges.grow)
  if (corrections.edges.feather > 0) {
    alpha = await sharp(alpha, { raw: { width, height, channels: 1 } })
      .blur(corrections.edges.feather * FEATHER_SIGMA_PER_PX)
      .toColourspace('b-w')
      .raw()
      .toBuffer()
  }
  return alpha
}

/** The corrected cutout, through the remover's one rendering with the run's options. */
export async function renderCorrectedCutout(
  opened: OpenedCutout,
  corrections: CutoutCorrections,
): Promise<{ bytes: Buffer; contentType: string; layout: CutoutLayout | null }> {
  const { renderCutout } = await import('~/features/tools/runners/background-remover.server')
  const { source, photo } = opened
  const alpha = await correctedAlpha(opened, corrections)
  // Read only from here on: renderCutout copies what it changes.
  const colours = corrections.edges.decontaminate ? opened.unmixed : photo.data
  const out = await renderCutout(source.meta.options, { ...photo, data: colours }, alpha, source.upload, source.backgroundImage)
  return { bytes: out.bytes, contentType: out.contentType, layout: out.layout }
}

/** The blurred picture with exactly these boxes at the run's radius, in the run's format. */
export async function renderCorrectedFaces(source: FacesSource, photo: RgbaImage, faces: Box[]): Promise<{ bytes: Buffer; contentType: string }> {
  const { renderBlur } = await import('~/features/tools/face-blurrer.server')
  const { inRequestedFormat } = await import('~/features/tools/runners/raster.server')
  const png = await renderBlur(photo, faces, source.meta.blur)
  const out = await inRequestedFormat(png, 'image/png', { format: source.meta.format ?? undefined }, source.upload)
  return { bytes: out.bytes, contentType: out.contentType }
}
