// Correcting a delivered result without running a model again (decision 157): the background
// remover's matte (parts, brush mask, edges) and the face blurrer's boxes. What the run kept is
// read back (store.server.ts), re-rendered (render.server.ts) through the tools' own rendering,
// and replaces the job's stored result; nothing is charged and no run is recorded.
import sharp from 'sharp'
import { executeTx, getDb } from '~/db/db.server'
import { ToolError, badRequest } from '~/features/jobs/errors.server'
import { findOwnedJob, replaceJobLayout, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { readResult, replaceResultBytes } from '~/features/jobs/results.server'
import { resultUrl } from '~/features/jobs/view'
import type { CutoutLayout } from '~/features/jobs/runner'
import { decodeToRgba, MAX_INPUT_PIXELS, readImageHeader, sniffImageType } from '~/features/tools/upload.server'
import type { RgbaImage } from '~/features/tools/image'
import { MASK_NEUTRAL, partSummary, type MaskLayer } from './alpha-rules'
import type { CutoutFacts, FacesFacts } from './keep.server'
import {
  correctedAlpha,
  decodePhoto,
  modelParts,
  openCutout,
  openFacesSource,
  photoOf,
  renderCorrectedCutout,
  renderCorrectedFaces,
  type OpenedCutout,
} from './render.server'
import { findResultEdit, readEditMask, readEditSource, saveCorrections, saveFacts, type EditRow, type StoredCorrections } from './store.server'
import {
  DEFAULT_EDGES,
  EDGE_LIMITS,
  EDIT_PREVIEW_MAX_SIDE,
  editPreviewUrl,
  type Box,
  type CorrectionInput,
  type EdgeSettings,
  type EditableTool,
  type EditView,
  isEditable,
  type FaceBox,
  type PartDecision,
} from './types'

export { isEditable }

export const JOB_NOT_FOUND_MESSAGE = 'No such job.'
export const NOT_EDITABLE_MESSAGE = 'Only background-removal and face-blur results can be corrected.'
export const NOT_DELIVERED_MESSAGE = 'This job did not deliver a result, so there is nothing to correct.'
export const NO_SOURCE_MESSAGE =
  'This result can no longer be corrected: what it was made from is kept as long as the result (24 hours), or the run was made before corrections were kept. Run the tool again.'
export const FACES_ON_CUTOUT_MESSAGE = 'faces corrects a face-blur result; a cutout takes mask, feather, grow, decontaminate and parts.'
export const CUTOUT_FIELDS_ON_FACES_MESSAGE = 'A face-blur result takes faces only; mask, feather, grow, decontaminate and parts correct a cutout.'
export const MASK_TYPE_MESSAGE = 'mask must be a greyscale PNG: white restores, black removes, mid-grey (128) leaves the matte.'
export const FEATHER_MESSAGE = `feather must be a whole number of pixels from ${EDGE_LIMITS.feather.min} to ${EDGE_LIMITS.feather.max}.`
export const GROW_MESSAGE = `grow must be a whole number of pixels from ${EDGE_LIMITS.grow.min} to ${EDGE_LIMITS.grow.max} (negative shrinks).`
/** At most this many boxes to blur (a crowd photo's detector tops out far below). */
export const MAX_FACE_BOXES = 200
export const FACES_MESSAGE = `faces must be a list of at most ${MAX_FACE_BOXES} boxes {x, y, width, height} in the result's pixels, each at least 1 px and inside the picture.`

export function maskSizeMessage(width: number, height: number): string {
  return `mask must be ${width}×${height} pixels (the result's size), or smaller with the same proportions.`
}

export function unknownPartMessage(id: string): string {
  return `parts names no part "${id}": use the ids the corrections view lists.`
}

/** The preview's size: the long side at most EDIT_PREVIEW_MAX_SIDE, never enlarged. */
export function previewSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, EDIT_PREVIEW_MAX_SIDE / Math.max(width, height))
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

export { editPreviewUrl }

type Editable = { job: ToolJobInfo & { result_id: string; tool: EditableTool }; row: EditRow }

/**
 * The job and its stored source, or the refusal: 404 (not the caller's), 409 (nothing to correct),
 * 410 (gone). `parts: false` leaves a cutout's parts unfound when they are not yet (a correction
 * that decides none needs none: finding them costs most of a second at 12 MP, decision 169).
 */
async function editableJob(jobId: string, accountId: string, now: Date = new Date(), { parts = true } = {}): Promise<Editable> {
  const job = await findOwnedJob(jobId, accountId)
  if (!job) throw new ToolError(404, JOB_NOT_FOUND_MESSAGE)
  if (!isEditable(job.tool)) throw new ToolError(409, NOT_EDITABLE_MESSAGE)
  if (job.status !== 'succeeded' || !job.result_id) throw new ToolError(409, NOT_DELIVERED_MESSAGE)
  const row = await findResultEdit(jobId, accountId, now)
  if (!row) throw new ToolError(410, NO_SOURCE_MESSAGE)
  return { job: job as Editable['job'], row: parts ? await withParts(row) : row }
}

/** The opened cutout of an editable job (checked by editableJob), or 410 when its source is gone meanwhile. */
async function openedCutout(jobId: string): Promise<OpenedCutout> {
  const opened = await openCutout(jobId, () => readEditSource(jobId))
  if (!opened) throw new ToolError(410, NO_SOURCE_MESSAGE)
  return opened
}

/** A cutout's parts, found on its first opening and kept in its facts from then on. */
async function withParts(row: EditRow): Promise<EditRow> {
  const facts = row.facts as CutoutFacts
  if (row.kind !== 'cutout' || facts.parts) return row
  const { parts } = await modelParts(await openedCutout(row.jobId))
  const found: CutoutFacts = { ...facts, parts: parts.map(partSummary) }
  await saveFacts(row.jobId, found)
  return { ...row, facts: found }
}

function sameBox(a: Box, b: Box): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height
}

/** The boxes blurred now, each with the detector's score when it is one of the detected boxes. */
function currentFaces(facts: FacesFacts, corrections: StoredCorrections | null): FaceBox[] {
  if (!corrections?.faces) return facts.detectedFaces
  return corrections.faces.map((box) => ({ ...box, score: facts.detectedFaces.find((face) => sameBox(face, box))?.score ?? null }))
}

function viewOf({ job, row }: Editable): EditView {
  const kind = row.kind
  const facts = row.facts as CutoutFacts & Partial<FacesFacts>
  const preview = previewSize(facts.width, facts.height)
  const decisions = row.corrections?.parts ?? {}
  const cutout = kind === 'cutout'
  return {
    jobId: job.id,
    kind,
    tool: job.tool,
    width: facts.width,
    height: facts.height,
    filename: job.filename ?? '',
    resultUrl: resultUrl(job.result_id),
    photoPreviewUrl: editPreviewUrl(job.id, 'photo'),
    mattePreviewUrl: cutout ? editPreviewUrl(job.id, 'matte') : null,
    maskPreviewUrl: cutout && row.hasMask ? editPreviewUrl(job.id, 'mask') : null,
    previewWidth: preview.width,
    previewHeight: preview.height,
    parts: cutout
      ? (facts.parts ?? []).map((part) => ({ ...part, decision: decisions[part.id] ?? null, thumbnailUrl: editPreviewUrl(job.id, `part-${part.id}`) }))
      : [],
    detectedFaces: cutout ? [] : (facts.detectedFaces ?? []),
    faces: cutout ? [] : currentFaces(facts as unknown as FacesFacts, row.corrections),
    edges: row.corrections?.edges ?? DEFAULT_EDGES,
    corrected: row.correctedAt !== null,
    blurRadius: cutout ? null : (facts.blurRadius ?? null),
    expiresAt: row.expiresAt.toISOString(),
  }
}

/** The result as the editor shows it; null when the job is not the account's, has expired or cannot be corrected (404). */
export async function readEditView(jobId: string, accountId: string): Promise<EditView | null> {
  try {
    return viewOf(await editableJob(jobId, accountId))
  } catch (error) {
    if (error instanceof ToolError) return null
    throw error
  }
}

/** The view, or the refusal with its status (the API says why a result cannot be corrected). */
export async function readEditViewOrRefusal(jobId: string, accountId: string): Promise<EditView> {
  return viewOf(await editableJob(jobId, accountId))
}

function checkEdges(edges: Partial<EdgeSettings> | undefined): EdgeSettings {
  const merged = { ...DEFAULT_EDGES, ...edges }
  const whole = (value: number, limits: { min: number; max: number }) => Number.isInteger(value) && value >= limits.min && value <= limits.max
  if (!whole(merged.feather, EDGE_LIMITS.feather)) throw badRequest(FEATHER_MESSAGE)
  if (!whole(merged.grow, EDGE_LIMITS.grow)) throw badRequest(GROW_MESSAGE)
  if (typeof merged.decontaminate !== 'boolean') throw badRequest('decontaminate must be true or false.')
  return merged
}

/** The boxes inside the picture (clipped to it), each at least a pixel; else 400. */
function checkFaces(faces: Box[], width: number, height: number): Box[] {
  if (!Array.isArray(faces) || faces.length > MAX_FACE_BOXES) throw badRequest(FACES_MESSAGE)
  return faces.map((box) => {
    const values = [box?.x, box?.y, box?.width, box?.height]
    if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) throw badRequest(FACES_MESSAGE)
    const x0 = Math.max(0, box.x)
    const y0 = Math.max(0, box.y)
    const x1 = Math.min(width, box.x + box.width)
    const y1 = Math.min(height, box.y + box.height)
    if (box.width < 1 || box.height < 1 || x1 - x0 < 1 || y1 - y0 < 1) throw badRequest(FACES_MESSAGE)
    // A box as sent is kept as it is when it fits (a detected box sent back stays the detected one).
    return x0 === box.x && y0 === box.y && x1 === box.x + box.width && y1 === box.y + box.height
      ? { x: box.x, y: box.y, width: box.width, height: box.height }
      : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
  })
}

/** A mask this size can be scaled to the result: the result's size, or smaller with its proportions (±1 px). */
export function maskFits(maskWidth: number, maskHeight: number, width: number, height: number): boolean {
  if (maskWidth === width && maskHeight === height) return true
  if (maskWidth > width || maskHeight > height) return false
  return Math.abs(Math.round((maskWidth * height) / width) - maskHeight) <= 1 || Math.abs(Math.round((maskHeight * width) / height) - maskWidth) <= 1
}

/** The mask's real type and size from its header (nothing decoded before that); else 400. */
async function checkedMask(png: Buffer, width: number, height: number): Promise<void> {
  const type = await sniffImageType(png, 'background-remover').catch(() => null)
  if (type !== 'image/png') throw badRequest(MASK_TYPE_MESSAGE)
  const header = await readImageHeader(png)
  if (!maskFits(header.width, header.height, width, height)) throw badRequest(maskSizeMessage(width, height))
}

/** A mask's own grey values: transparent parts count as 128 (leave the matte). */
function maskGrey(png: Buffer, maxPixels: number) {
  return sharp(png, { limitInputPixels: maxPixels, failOn: 'error' })
    .flatten({ background: { r: MASK_NEUTRAL, g: MASK_NEUTRAL, b: MASK_NEUTRAL } })
    .toColourspace('b-w')
}

/**
 * One channel of `pixels` when they are opaque grey (one channel, or R = G = B with alpha 255: the
 * editor's canvas sends this), where maskGrey's flattening and conversion give each value back
 * unchanged; null for anything else, which maskGrey converts.
 */
function opaqueGrey(pixels: Buffer, channels: number, count: number): Buffer | null {
  if (pixels.length !== count * channels) return null // 16 bits a sample
  if (channels === 1) return pixels
  if (channels < 3) return null
  const grey = Buffer.allocUnsafe(count)
  for (let i = 0, at = 0; i < count; i++, at += channels) {
    const v = pixels[at]!
    if (pixels[at + 1] !== v || pixels[at + 2] !== v || (channels === 4 && pixels[at + 3] !== 255)) return null
    grey[i] = v
  }
  return grey
}

/** The mask's grey values at its own size: decoded once, converted only when it is not opaque grey already. */
async function maskValues(png: Buffer, maxPixels: number): Promise<{ data: Buffer; info: { width: number; height: number } }> {
  const decoded = await sharp(png, { limitInputPixels: maxPixels, failOn: 'error' }).raw().toBuffer({ resolveWithObject: true })
  const grey = opaqueGrey(decoded.data, decoded.info.channels, decoded.info.width * decoded.info.height)
  if (grey) return { data: grey, info: decoded.info }
  return maskGrey(png, maxPixels).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
}

/**
 * Stroked rows this close together (in the mask's own rows) are scaled as one box: every scaling
 * has its own cost, and the boxes, each with a pixel around it, must never overlap (a pixel
 * blended twice).
 */
const STROKE_BAND_GAP = 16

/**
 * A mask's strokes at the result's size, as boxes to blend; none when it is 128 everywhere (no
 * correction). A smaller mask is scaled up only around its strokes (the rest is 128 anyway): one
 * box for each band of rows with strokes in it, as wide as those rows' strokes, so two strokes
 * far apart do not scale the whole picture between them (decision 169).
 */
export async function maskPixels(png: Buffer, width: number, height: number): Promise<MaskLayer[]> {
  try {
    const { data: small, info } = await maskValues(png, width * height)
    const bands = strokeBands(small, info.width, info.height)
    if (bands.length === 0) return []
    if (info.width === width && info.height === height) return [{ data: small, box: { x: 0, y: 0, width, height } }]
    const raw = { raw: { width: info.width, height: info.height, channels: 1 as const } }
    return await Promise.all(
      bands.map(async (strokes) => {
        // The band's box with a pixel around it (linear scaling reads one neighbour), in both sizes.
        const x0 = Math.max(0, strokes.x0 - 1)
        const y0 = Math.max(0, strokes.y0 - 1)
        const x1 = Math.min(info.width, strokes.x1 + 1)
        const y1 = Math.min(info.height, strokes.y1 + 1)
        const fx0 = Math.floor((x0 * width) / info.width)
        const fy0 = Math.floor((y0 * height) / info.height)
        const fx1 = Math.min(width, Math.ceil((x1 * width) / info.width))
        const fy1 = Math.min(height, Math.ceil((y1 * height) / info.height))
        const data = await sharp(small, raw)
          .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
          .resize(fx1 - fx0, fy1 - fy0, { fit: 'fill', kernel: 'linear' })
          .extractChannel(0)
          .raw()
          .toBuffer()
        return { data, box: { x: fx0, y: fy0, width: fx1 - fx0, height: fy1 - fy0 } }
      }),
    )
  } catch (error) {
    throw new ToolError(400, MASK_TYPE_MESSAGE, { cause: error })
  }
}

type StrokeBox = { x0: number; y0: number; x1: number; y1: number }

/**
 * The boxes of a mask's pixels other than 128 (x1, y1 exclusive), one for each band of rows with
 * such pixels, bands less than STROKE_BAND_GAP rows apart joined; none when there are none.
 */
export function strokeBands(mask: Uint8Array, width: number, height: number): StrokeBox[] {
  const bands: StrokeBox[] = []
  let band: StrokeBox | null = null
  for (let y = 0; y < height; y++) {
    const row = y * width
    let x0 = width
    let x1 = 0
    for (let x = 0; x < width; x++) {
      if (mask[row + x] === MASK_NEUTRAL) continue
      if (x < x0) x0 = x
      x1 = x + 1
    }
    if (x1 === 0) continue
    if (band && y - band.y1 < STROKE_BAND_GAP) {
      band.x0 = Math.min(band.x0, x0)
      band.x1 = Math.max(band.x1, x1)
      band.y1 = y + 1
    } else {
      band = { x0, y0: y, x1, y1: y + 1 }
      bands.push(band)
    }
  }
  return bands
}

/** The whole correction as stored: what was sent (absent: none, the defaults, the detected boxes). */
function storedCorrections(row: EditRow, input: CorrectionInput, facts: CutoutFacts & Partial<FacesFacts>): StoredCorrections {
  if (row.kind === 'faces') {
    if (input.mask !== undefined || input.edges !== undefined || input.parts !== undefined) throw badRequest(CUTOUT_FIELDS_ON_FACES_MESSAGE)
    return { edges: DEFAULT_EDGES, parts: {}, faces: input.faces ? checkFaces(input.faces, facts.width, facts.height) : null }
  }
  if (input.faces !== undefined) throw badRequest(FACES_ON_CUTOUT_MESSAGE)
  const parts: Record<string, PartDecision> = {}
  for (const [id, decision] of Object.entries(input.parts ?? {})) {
    if (!facts.parts?.some((part) => part.id === id)) throw badRequest(unknownPartMessage(id))
    if (decision !== 'keep' && decision !== 'remove') throw badRequest(`parts["${id}"] must be keep or remove.`)
    parts[id] = decision
  }
  return { edges: checkEdges(input.edges), parts, faces: null }
}

/**
 * Re-renders the result from what the run kept and these corrections, replaces the job's stored
 * result (its result_url serves it), charges nothing. Every field describes the whole correction:
 * absent means none (mask), the defaults (edges), no decisions (parts), the detected boxes (faces);
 * mask 'keep' keeps the stored mask. Throws ToolError: 400 bad input, 404, 409, 410.
 */
export async function applyCorrections(
  jobId: string,
  accountId: string,
  input: CorrectionInput,
  now: Date = new Date(),
): Promise<{ bytes: Buffer; contentType: string; filename: string }> {
  const { job, row } = await editableJob(jobId, accountId, now, { parts: input.parts !== undefined && Object.keys(input.parts).length > 0 })
  const facts = row.facts as CutoutFacts & Partial<FacesFacts>
  const corrections = storedCorrections(row, input, facts)
  const sentMask = input.mask instanceof Buffer ? input.mask : null
  let rendered: { bytes: Buffer; contentType: string; layout?: CutoutLayout | null }
  if (row.kind === 'cutout') {
    // The mask's real type and size are checked before anything is opened; then it is scaled while the photo decodes.
    if (sentMask) await checkedMask(sentMask, facts.width, facts.height)
    const mask = () => (sentMask ? maskPixels(sentMask, facts.width, facts.height) : input.mask === 'keep' ? storedMaskAtFullSize(jobId, facts) : Promise.resolve([]))
    rendered = await correctCutout(jobId, () => readEditSource(jobId), mask, corrections)
  } else {
    const packed = await readEditSource(jobId)
    if (!packed) throw new ToolError(410, NO_SOURCE_MESSAGE)
    const source = openFacesSource(packed)
    rendered = await renderCorrectedFaces(source, await decodePhoto(source.upload), corrections.faces ?? facts.detectedFaces ?? [])
  }
  await executeTx(getDb(), async (trx) => {
    await replaceResultBytes(job.result_id, { bytes: rendered.bytes, contentType: rendered.contentType }, trx)
    await saveCorrections(jobId, corrections, input.mask === 'keep' ? 'keep' : sentMask, now, trx)
    if (rendered.layout !== undefined && job.cutout_layout !== null) await replaceJobLayout(jobId, rendered.layout, trx)
  })
  return { bytes: rendered.bytes, contentType: rendered.contentType, filename: job.filename ?? '' }
}

/**
 * A cutout's correction rendered (no storage written): the source opened, its photo decoding
 * while the mask is scaled to full size and the alpha corrected, then the remover's rendering.
 * The bench times this (decision 169). Throws 410 when the source is gone.
 */
export async function correctCutout(
  jobId: string,
  source: () => Promise<Buffer | null>,
  mask: () => Promise<MaskLayer[]>,
  corrections: Pick<StoredCorrections, 'edges' | 'parts'>,
): Promise<{ bytes: Buffer; contentType: string; layout: CutoutLayout | null }> {
  // The mask scales on the image threads while the cutout opens and its matte is copied; the render awaits it.
  const layers = mask()
  // Marked handled here: a source that is gone answers 410 before the mask is awaited.
  layers.catch(() => {})
  const opened = await openCutout(jobId, source, { colours: true })
  if (!opened) throw new ToolError(410, NO_SOURCE_MESSAGE)
  return renderCorrectedCutout(opened, { edges: corrections.edges, parts: corrections.parts, mask: layers })
}

async function storedMaskAtFullSize(jobId: string, facts: { width: number; height: number }): Promise<MaskLayer[]> {
  const png = await readEditMask(jobId)
  return png ? maskPixels(png, facts.width, facts.height) : []
}

/** Long side at most this for a part's or a face's small picture. */
const THUMBNAIL_MAX_SIDE = 256
const PREVIEW_JPEG_QUALITY = 82

async function partThumbnail(opened: OpenedCutout, id: string): Promise<Buffer | null> {
  const { model, parts } = await modelParts(opened)
  const part = parts.find((p) => p.id === id)
  if (!part) return null
  const photo = await photoOf(opened)
  const { width } = opened.source.meta
  const { x, y, width: w, height: h } = part.box
  // The part alone: the photo's colours, the model's alpha on the part's own pixels only.
  const crop = Buffer.alloc(w * h * 4)
  for (const [offset, length] of part.runs) {
    const row = Math.floor(offset / width)
    const start = offset - row * width
    for (let px = start; px < start + length; px++) {
      const from = (row * width + px) * 4
      const to = ((row - y) * w + (px - x)) * 4
      photo.data.copy(crop, to, from, from + 3)
      crop[to + 3] = model[row * width + px]
    }
  }
  return sharp(crop, { raw: { width: w, height: h, channels: 4 } })
    .resize(THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer()
}

/** which: 'photo' | 'matte' | 'mask' | 'result' | `part-${id}` | `face-${index}` (index into detectedFaces); null when there is no such image (404). */
export async function readEditPreview(jobId: string, accountId: string, which: string): Promise<{ bytes: Buffer; contentType: string } | null> {
  let editable: Editable
  try {
    editable = await editableJob(jobId, accountId)
  } catch (error) {
    if (error instanceof ToolError) return null
    throw error
  }
  const { row } = editable
  if (which === 'result') return resultPreview(editable.job.result_id, accountId)
  const facts = row.facts as CutoutFacts & Partial<FacesFacts>
  const size = previewSize(facts.width, facts.height)
  if (row.kind === 'cutout') return cutoutPreview(row, which, size)
  const packed = await readEditSource(jobId)
  if (!packed) return null
  const photo = await decodeToRgba(openFacesSource(packed).upload)
  if (which === 'photo') return photoPreview(photo, size)
  const index = /^face-(\d+)$/.exec(which)?.[1]
  const face = index === undefined ? undefined : facts.detectedFaces?.[Number(index)]
  if (!face) return null
  const left = Math.max(0, Math.floor(face.x))
  const top = Math.max(0, Math.floor(face.y))
  const box = {
    left,
    top,
    width: Math.max(1, Math.min(photo.width, Math.ceil(face.x + face.width)) - left),
    height: Math.max(1, Math.min(photo.height, Math.ceil(face.y + face.height)) - top),
  }
  const thumbnail = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 4 } })
    .extract(box)
    .resize(THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .jpeg({ quality: PREVIEW_JPEG_QUALITY })
    .toBuffer()
  return { bytes: thumbnail, contentType: 'image/jpeg' }
}

/** The result preview's WebP quality (its alpha is kept lossless by sharp's default). */
const RESULT_PREVIEW_WEBP_QUALITY = 82

/**
 * The current result at the preview's size (long side at most EDIT_PREVIEW_MAX_SIDE, its own
 * proportions), WebP with its alpha: the editor's before/after shows this, not the full-size result,
 * whose decode in the browser (a 12 MP PNG) ran beside the brush's first strokes (decision 182).
 * Null (404) when the result is gone or is no picture (remove.bg's zip).
 */
async function resultPreview(resultId: string, accountId: string): Promise<{ bytes: Buffer; contentType: string } | null> {
  const result = await readResult(resultId, accountId)
  if (!result) return null
  try {
    const bytes = await sharp(result.bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 })
      .resize(EDIT_PREVIEW_MAX_SIDE, EDIT_PREVIEW_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: RESULT_PREVIEW_WEBP_QUALITY, effort: 2 })
      .toBuffer()
    return { bytes, contentType: 'image/webp' }
  } catch {
    return null
  }
}

async function photoPreview(photo: RgbaImage, size: { width: number; height: number }) {
  const raw = { raw: { width: photo.width, height: photo.height, channels: 4 as const } }
  const bytes = await sharp(photo.data, raw).resize(size.width, size.height, { fit: 'fill' }).removeAlpha().jpeg({ quality: PREVIEW_JPEG_QUALITY }).toBuffer()
  return { bytes, contentType: 'image/jpeg' }
}

async function cutoutPreview(row: EditRow, which: string, size: { width: number; height: number }): Promise<{ bytes: Buffer; contentType: string } | null> {
  const facts = row.facts as CutoutFacts
  const png = (bytes: Buffer) => ({ bytes, contentType: 'image/png' })
  const grey = (data: Uint8Array) =>
    sharp(data, { raw: { width: facts.width, height: facts.height, channels: 1 } })
      .resize(size.width, size.height, { fit: 'fill' })
      .toColourspace('b-w')
      .png()
      .toBuffer()
  const opened = await openedCutout(row.jobId)
  if (which === 'photo') return photoPreview(await photoOf(opened), size)
  if (which === 'mask') {
    const mask = await readEditMask(row.jobId)
    return mask ? png(await maskGrey(mask, facts.width * facts.height).resize(size.width, size.height, { fit: 'fill' }).png().toBuffer()) : null
  }
  if (which === 'matte') {
    // The brush's base: parts and edges applied, not the stored strokes, which the editor draws over it
    // from the 'mask' preview (applied here too, they would count twice).
    const corrections = row.corrections ?? { edges: DEFAULT_EDGES, parts: {}, faces: null }
    return png(await grey(await correctedAlpha(opened, { edges: corrections.edges, parts: corrections.parts, mask: [] })))
  }
  const partId = /^part-(\d+)$/.exec(which)?.[1]
  if (partId === undefined) return null
  const thumbnail = await partThumbnail(opened, partId)
  return thumbnail ? png(thumbnail) : null
}

/** The boxes the face detector found in a face-blur job's result (GET /api/jobs/<id>/ lists them); null when none are kept. */
export async function readDetectedFaces(jobId: string, accountId: string): Promise<FaceBox[] | null> {
  const row = await findResultEdit(jobId, accountId)
  return row?.kind === 'faces' ? ((row.facts as FacesFacts).detectedFaces ?? []) : null
}
