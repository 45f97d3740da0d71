// Re-rendering a result from what its run kept and the user's corrections (decision 157): no
// model runs. The cutout's matte goes through the part decisions, the brush mask, grow/shrink and
// feather, then the remover's own rendering (renderCutout) with every option the run had; the
// blurrer's picture through its own renderBlur with the given boxes at the run's radius.
import zlib from 'node:zlib'
import { promisify } from 'node:util'
import sharp from 'sharp'
import type { RgbaImage } from '~/features/tools/image'
import { decodeToRgba } from '~/features/tools/upload.server'
import { sharedCopy } from '~/features/tools/models/png.server'
import { applyPartDecisions, blendMask, findParts, growMatte, type MaskLayer, type PartPixels } from './alpha-rules'
import type { CutoutSourceMeta, FacesSourceMeta } from './source-meta'
import { fromRuns } from './matte-runs'
import { unpack } from './pack.server'
import type { Box, EdgeSettings, PartDecision } from './types'
import type { CutoutLayout } from '~/features/jobs/runner'

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

/**
 * The refined matte of a packed source: from its runs (decision 182), or inflated whole from a
 * source kept before them (decision 157; such a row lives 24 hours).
 */
async function openMatte(meta: CutoutSourceMeta, sections: Record<string, Buffer>): Promise<Uint8Array> {
  if (!sections.alphaRuns) return inflate(sections.alpha!)
  const [runs, literals] = await Promise.all([inflate(sections.alphaRuns), inflate(sections.alphaLiterals!)])
  return fromRuns({ runs: aligned32(runs), literals }, meta.width * meta.height)
}

/** A copy aligned for Uint32Array (an inflated buffer may sit at any offset of a pool). */
function aligned32(bytes: Buffer): Uint32Array {
  const words = new Uint32Array(bytes.byteLength / 4)
  Buffer.from(words.buffer).set(bytes)
  return words
}

/** The packed source's sections opened (the inflates at once, on the thread pool). */
async function inflateSource(meta: CutoutSourceMeta, sections: Record<string, Buffer>): Promise<CutoutSource> {
  const [alpha, at, rgb] = await Promise.all([openMatte(meta, sections), inflate(sections.changedAt!), inflate(sections.changedRgb!)])
  const changedAt = aligned32(at)
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

export async function openCutoutSource(packed: Buffer): Promise<CutoutSource> {
  const { meta, sections } = unpack<CutoutSourceMeta>(packed)
  return inflateSource(meta, sections)
}

export function openFacesSource(packed: Buffer): FacesSource {
  const { meta, sections } = unpack<FacesSourceMeta>(packed)
  return { meta, upload: sections.upload! }
}

/** The photo decoded exactly as the run decoded it (runRaster's decode). */
export function decodePhoto(upload: Buffer): Promise<RgbaImage> {
  return decodeToRgba(upload)
}

/**
 * The photo moved into memory the image threads share: every render of a correction encodes from it, and
 * the encoder's threads read shared memory where they are handed the rest a segment at a time (a 12 MP
 * photo is 48 MB copied per render otherwise). Copied once, when the cutout is opened (decision 183).
 */
function inSharedMemory(photo: RgbaImage): RgbaImage {
  return { ...photo, data: sharedCopy(photo.data) }
}

/**
 * The colours a correction renders from (decontamination on): the photo with what the refinement
 * unmixed put back, written into the photo's own buffer (no copy of the picture), and the photo's
 * own RGB of those pixels kept aside (decontamination off puts them back in a copy).
 */
export interface CutoutColours {
  /** RGBA, its alpha the photo's own; read only. */
  unmixed: RgbaImage
  /** Three bytes for each of source.changedAt: the photo's RGB there. */
  photoRgb: Buffer
}

/** `photo` turned into the unmixed colours in place; what it had there is returned beside them. */
export function unmixInPlace(photo: RgbaImage, source: Pick<CutoutSource, 'changedAt' | 'changedRgb'>): CutoutColours {
  const { changedAt, changedRgb } = source
  const colours = photo.data
  const photoRgb = Buffer.allocUnsafe(changedRgb.length)
  for (let k = 0; k < changedAt.length; k++) {
    const i = changedAt[k] * 4
    photoRgb[k * 3] = colours[i]
    photoRgb[k * 3 + 1] = colours[i + 1]
    photoRgb[k * 3 + 2] = colours[i + 2]
    colours[i] = changedRgb[k * 3]
    colours[i + 1] = changedRgb[k * 3 + 1]
    colours[i + 2] = changedRgb[k * 3 + 2]
  }
  return { unmixed: photo, photoRgb }
}

/** The photo's own colours (decontamination off): a copy of the unmixed ones with the photo's RGB put back. */
export function photoColours(colours: CutoutColours, changedAt: Uint32Array): RgbaImage {
  const data = sharedCopy(colours.unmixed.data)
  const { photoRgb } = colours
  for (let k = 0; k < changedAt.length; k++) {
    const i = changedAt[k] * 4
    data[i] = photoRgb[k * 3]
    data[i + 1] = photoRgb[k * 3 + 1]
    data[i + 2] = photoRgb[k * 3 + 2]
  }
  return { ...colours.unmixed, data }
}

/**
 * A cutout's source opened for correcting: the mattes inflated; its colours decoded on first need
 * (or handed over by the run that made it, in this process: keepOpened). An editor applies
 * corrections one after another, so the last one opened is kept in memory (one, for a short while):
 * the next correction of the same result skips the inflate and the decode (decisions 157, 169).
 */
export interface OpenedCutout {
  jobId: string
  source: CutoutSource
  /** The colours with decontamination on, once asked for (coloursOf). */
  colours?: Promise<CutoutColours>
  /** The photo's own colours (previews, decontamination off), once asked for (photoOf). */
  photo?: Promise<RgbaImage>
  /** The model's matte at full size and its parts, once asked for. */
  modelParts?: Promise<{ model: Buffer; parts: PartPixels[] }>
  /**
   * A full-size buffer in shared memory that the last render's corrected alpha was made in, free
   * again: the next correction copies the matte into it instead of into fresh memory (at 12 MP,
   * 12 MB whose page faults cost more than the copy). Absent while a render holds it.
   */
  spareAlpha?: Uint8Array
  /** How many renders are under way (each holds an alpha buffer of its own). */
  rendering?: number
}

/** How long the last opened cutout stays in memory without a correction. */
export const OPENED_KEPT_MS = 5 * 60_000
let lastOpened: { opened: OpenedCutout; timer: NodeJS.Timeout } | null = null

/** Drops the cutout kept in memory (the next correction reads its source from storage again). */
export function forgetOpened(): void {
  if (lastOpened) clearTimeout(lastOpened.timer)
  lastOpened = null
}

function remember(opened: OpenedCutout): void {
  forgetOpened()
  lastOpened = { opened, timer: setTimeout(forgetOpened, OPENED_KEPT_MS) }
  lastOpened.timer.unref()
  // The spare alpha buffer is made (and its pages touched) once the caller has gone on, off the path of
  // the request that opened the cutout: a first correction then finds it ready (the editor opens the
  // cutout for its photo preview long before a stroke is applied). Not while a render holds one.
  setImmediate(() => {
    if (!opened.spareAlpha && !opened.rendering) opened.spareAlpha = sharedCopy(opened.source.alpha)
  })
}

/** What a run hands over in memory for a correction in its own process: the source unpacked, the colours as the run had them. */
export interface OpenedByRun {
  source: CutoutSource
  colours: CutoutColours
}

/**
 * The cutout a run has just made, kept open in this process as if a correction had opened it: the
 * run's decoded photo and refined matte are what a correction would decode and inflate again, so
 * a first correction here skips both (decision 169). Read only from here on.
 */
export function keepOpened(jobId: string, byRun: OpenedByRun): void {
  remember({ jobId, source: byRun.source, colours: Promise.resolve(byRun.colours) })
}

/** The colours with decontamination on, decoded on first need. */
export function coloursOf(opened: OpenedCutout): Promise<CutoutColours> {
  opened.colours ??= decodePhoto(opened.source.upload).then((photo) => unmixInPlace(inSharedMemory(photo), opened.source))
  return opened.colours
}

/** The photo's own colours, made on first need from the unmixed ones. */
export function photoOf(opened: OpenedCutout): Promise<RgbaImage> {
  opened.photo ??= coloursOf(opened).then((colours) => photoColours(colours, opened.source.changedAt))
  return opened.photo
}

/**
 * The job's cutout source opened (from memory when it was the last one opened). The caller has
 * checked the owner. `colours`: start decoding the photo at once, while the mattes are inflated.
 */
export async function openCutout(jobId: string, packed: () => Promise<Buffer | null>, options: { colours?: boolean } = {}): Promise<OpenedCutout | null> {
  if (lastOpened?.opened.jobId !== jobId) {
    const bytes = await packed()
    if (!bytes) return null
    const { meta, sections } = unpack<CutoutSourceMeta>(bytes)
    const decoding = options.colours ? decodePhoto(sections.upload!).then(inSharedMemory) : null
    // Marked handled here: whoever asks for the colours meets a failed decode.
    decoding?.catch(() => {})
    const source = await inflateSource(meta, sections)
    const opened: OpenedCutout = { jobId, source }
    if (decoding) opened.colours = decoding.then((photo) => unmixInPlace(photo, source))
    remember(opened)
  } else if (options.colours) {
    coloursOf(lastOpened.opened).catch(() => {})
  }
  lastOpened!.timer.refresh()
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
  /**
   * The brush mask's strokes at full size, as boxes that do not overlap; none: no mask. May still be
   * scaling on the image threads: the matte is copied meanwhile.
   */
  mask: MaskLayer[] | Promise<MaskLayer[]>
}

/**
 * The refined matte with the corrections applied: parts, then the mask, then grow/shrink, then feather.
 * Made in `into` when given (a full-size buffer the caller owns), else in fresh shared memory.
 */
export async function correctedAlpha(opened: OpenedCutout, corrections: CutoutCorrections, into?: Uint8Array): Promise<Uint8Array> {
  const { source } = opened
  const { width, height } = source.meta
  // In shared memory, as the colours are: the encoder's threads read it there.
  let alpha: Uint8Array = into ?? Buffer.from(new SharedArrayBuffer(source.alpha.length))
  alpha.set(source.alpha)
  if (Object.keys(corrections.parts).length > 0) {
    const { model, parts } = await modelParts(opened)
    applyPartDecisions(alpha, model, parts, corrections.parts)
  }
  for (const layer of await corrections.mask) blendMask(alpha, width, layer)
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

/** The colours a corrected cutout is rendered from: the unmixed ones with decontamination on, the photo's own with it off. */
export function coloursFor(opened: OpenedCutout, decontaminate: boolean): Promise<RgbaImage> {
  return decontaminate ? coloursOf(opened).then((colours) => colours.unmixed) : photoOf(opened)
}

/** The corrected cutout, through the remover's one rendering with the run's options. */
export async function renderCorrectedCutout(
  opened: OpenedCutout,
  corrections: CutoutCorrections,
): Promise<{ bytes: Buffer; contentType: string; layout: CutoutLayout | null }> {
  const { renderCutout } = await import('~/features/tools/runners/background-remover.server')
  const { source } = opened
  // The spare alpha buffer is taken for this render (a correction rendering at the same time makes its own)
  // and given back when the encoder has read it.
  const buffer = opened.spareAlpha ?? Buffer.from(new SharedArrayBuffer(source.alpha.length))
  opened.spareAlpha = undefined
  opened.rendering = (opened.rendering ?? 0) + 1
  try {
    // The alpha is worked out while the photo decodes (when it is not open yet); both read only from here on.
    const [alpha, colours] = await Promise.all([correctedAlpha(opened, corrections, buffer), coloursFor(opened, corrections.edges.decontaminate)])
    const out = await renderCutout(source.meta.options, colours, alpha, source.upload, source.backgroundImage)
    return { bytes: out.bytes, contentType: out.contentType, layout: out.layout }
  } finally {
    opened.rendering! -= 1
    opened.spareAlpha = buffer
  }
}

/** The blurred picture with exactly these boxes at the run's radius, in the run's format. */
export async function renderCorrectedFaces(source: FacesSource, photo: RgbaImage, faces: Box[]): Promise<{ bytes: Buffer; contentType: string }> {
  const { renderBlur } = await import('~/features/tools/face-blurrer.server')
  const { inRequestedFormat } = await import('~/features/tools/runners/raster.server')
  const png = await renderBlur(photo, faces, source.meta.blur)
  const out = await inRequestedFormat(png, 'image/png', { format: source.meta.format ?? undefined }, source.upload)
  return { bytes: out.bytes, contentType: out.contentType }
}
