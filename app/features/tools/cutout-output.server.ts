// What the remover makes of a refined matte: the cutout laid out (cropped to the subject with a
// margin, or the subject scaled and placed), put over a colour or a background image with an
// optional soft shadow, and encoded as asked (PNG, JPEG, WebP, the alpha mask alone, or remove.bg's
// zip of a colour JPEG and an alpha PNG; by default as output-format.server.ts's rule says). It also reports where the subject ended up.
// The matte itself (model, refinement) is background-remover.server.ts's work, not this module's.
import sharp, { type Sharp } from 'sharp'
import yazl from 'yazl'
import type { RgbaImage } from './image'
import { cutoutAlpha } from './models/png.server'
import { chooseEncoding, CONTENT_TYPES, encodeWith, jpegQualityFor, inputFamily, type OutputFormat } from './output-format.server'
import type { ForegroundBox } from '../jobs/runner'
import { MAX_INPUT_PIXELS } from './upload.server'

/** A margin or offset: pixels, or a percentage of the subject's longer side. */
export interface Length {
  value: number
  unit: 'px' | '%'
}

export interface CutoutOutputOptions {
  /** `alpha`: the matte alone, as a grayscale PNG. */
  channels?: 'rgba' | 'alpha'
  /** A colour sharp reads (a preset name or #hex). */
  background?: string
  /** The background image's bytes (already type- and pixel-checked), sized to cover the output. */
  backgroundImage?: Buffer | null
  /** A soft drop shadow under the subject, from its own alpha. */
  shadow?: boolean
  /** Crop to the subject plus this margin on every side (past the photo's edge: transparent). */
  crop?: { margin: Length }
  /** The subject scaled to fit this fraction (0.1..1) of the output, placed at `position`. */
  scale?: number
  /** Where the subject goes (CSS background-position: 0 = left/top, 1 = right/bottom). */
  position?: { x: number; y: number }
  /** No semi-transparency: the matte thresholded at half. */
  hardEdges?: boolean
  /** The output downscaled (never enlarged) to at most this many pixels. */
  maxPixels?: number
  /** Absent: `auto` (the upload's family when opaque, PNG with alpha). */
  format?: OutputFormat | 'zip'
}

export interface ComposedCutout {
  bytes: Buffer
  contentType: string
  width: number
  height: number
  /** The subject's box in the output; null when the matte found no subject. */
  foreground: ForegroundBox | null
  note: string | null
}

/** A pixel of the matte at or above this counts as subject when finding its box (about 5 %: stray fringe is not the subject). */
export const SUBJECT_ALPHA = 13
/** The shadow: how dark at most, and its offset and blur as shares of the subject's height. */
export const SHADOW = { opacity: 0.45, offset: 0.02, blur: 0.025 } as const
export const NO_SUBJECT_NOTE = 'No subject was found, so nothing was cropped or moved.'

/** The box of the matte's subject pixels, or null when there are none. */
export function foregroundBox(alpha: Uint8Array, width: number, height: number): ForegroundBox | null {
  let top = height
  let bottom = -1
  let left = width
  let right = -1
  for (let y = 0; y < height; y++) {
    const row = y * width
    for (let x = 0; x < width; x++) {
      if (alpha[row + x] < SUBJECT_ALPHA) continue
      if (y < top) top = y
      bottom = y
      if (x < left) left = x
      if (x > right) right = x
    }
  }
  return bottom < 0 ? null : { top, left, width: right - left + 1, height: bottom - top + 1 }
}

export function lengthInPixels(length: Length, subject: ForegroundBox): number {
  return Math.round(length.unit === 'px' ? length.value : (length.value / 100) * Math.max(subject.width, subject.height))
}

interface Canvas {
  data: Buffer
  width: number
  height: number
  foreground: ForegroundBox | null
}

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 }

/** A transparent canvas with the part of `cutout` inside `from` pasted at (left, top). */
async function paste(cutout: RgbaImage, from: ForegroundBox, canvas: { width: number; height: number }, left: number, top: number): Promise<Buffer> {
  const region = await sharp(cutout.data, { raw: { width: cutout.width, height: cutout.height, channels: 4 } })
    .extract({ left: from.left, top: from.top, width: from.width, height: from.height })
    .raw()
    .toBuffer()
  return sharp({ create: { width: canvas.width, height: canvas.height, channels: 4, background: TRANSPARENT } })
    .composite([{ input: region, raw: { width: from.width, height: from.height, channels: 4 }, left, top }])
    .raw()
    .toBuffer()
}

/** Crop to the subject with its margin; the part of the margin past the photo stays transparent. */
async function cropToSubject(cutout: RgbaImage, subject: ForegroundBox, margin: Length): Promise<Canvas> {
  const pad = lengthInPixels(margin, subject)
  const box = { left: subject.left - pad, top: subject.top - pad, width: subject.width + 2 * pad, height: subject.height + 2 * pad }
  const inside = {
    left: Math.max(0, box.left),
    top: Math.max(0, box.top),
    width: Math.min(cutout.width, box.left + box.width) - Math.max(0, box.left),
    height: Math.min(cutout.height, box.top + box.height) - Math.max(0, box.top),
  }
  const data = await paste(cutout, inside, box, inside.left - box.left, inside.top - box.top)
  return { data, width: box.width, height: box.height, foreground: { top: pad, left: pad, width: subject.width, height: subject.height } }
}

/** The subject scaled to `scale` of the canvas (fit inside) and placed at `position`, on a canvas the photo's size. */
async function placeSubject(cutout: RgbaImage, subject: ForegroundBox, scale: number | undefined, position: { x: number; y: number }): Promise<Canvas> {
  let layer = await sharp(cutout.data, { raw: { width: cutout.width, height: cutout.height, channels: 4 } })
    .extract({ left: subject.left, top: subject.top, width: subject.width, height: subject.height })
    .raw()
    .toBuffer()
  let width = subject.width
  let height = subject.height
  if (scale !== undefined) {
    const factor = Math.min((scale * cutout.width) / width, (scale * cutout.height) / height)
    width = Math.max(1, Math.min(cutout.width, Math.round(width * factor)))
    height = Math.max(1, Math.min(cutout.height, Math.round(height * factor)))
    layer = await sharp(layer, { raw: { width: subject.width, height: subject.height, channels: 4 } })
      .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
      .raw()
      .toBuffer()
  }
  const left = Math.round((cutout.width - width) * position.x)
  const top = Math.round((cutout.height - height) * position.y)
  const data = await paste({ data: layer, width, height }, { left: 0, top: 0, width, height }, cutout, left, top)
  return { data, width: cutout.width, height: cutout.height, foreground: { top, left, width, height } }
}

/** At most `maxPixels` pixels (aspect kept); the subject's box follows. */
async function limitPixels(canvas: Canvas, maxPixels: number): Promise<Canvas> {
  if (canvas.width * canvas.height <= maxPixels) return canvas
  const factor = Math.sqrt(maxPixels / (canvas.width * canvas.height))
  const width = Math.max(1, Math.floor(canvas.width * factor))
  const height = Math.max(1, Math.floor(canvas.height * factor))
  const data = await sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer()
  const fx = width / canvas.width
  const fy = height / canvas.height
  const box = canvas.foreground
  const foreground = box && {
    top: Math.round(box.top * fy),
    left: Math.round(box.left * fx),
    width: Math.max(1, Math.round(box.width * fx)),
    height: Math.max(1, Math.round(box.height * fy)),
  }
  return { data, width, height, foreground }
}

/** One byte a pixel stays one channel (sharp would otherwise widen it to sRGB). */
function grey(data: Buffer, width: number, height: number): Sharp {
  return sharp(data, { raw: { width, height, channels: 1 } }).toColourspace('b-w')
}

function alphaOf(canvas: Canvas): Buffer {
  const alpha = Buffer.allocUnsafe(canvas.width * canvas.height)
  for (let p = 0, i = 3; p < alpha.length; p++, i += 4) alpha[p] = canvas.data[i]
  return alpha
}

/** The subject over its own soft shadow: the alpha shifted down, blurred and darkened. */
async function withShadow(canvas: Canvas): Promise<Buffer> {
  const subjectHeight = canvas.foreground?.height ?? canvas.height
  const offset = Math.max(1, Math.round(subjectHeight * SHADOW.offset))
  const sigma = Math.max(1, subjectHeight * SHADOW.blur)
  const alpha = alphaOf(canvas)
  const shifted = Buffer.alloc(alpha.length)
  alpha.copy(shifted, offset * canvas.width, 0, Math.max(0, alpha.length - offset * canvas.width))
  const blurred = await grey(shifted, canvas.width, canvas.height).blur(sigma).raw().toBuffer()
  const shadow = Buffer.alloc(canvas.width * canvas.height * 4)
  for (let p = 0, i = 3; p < blurred.length; p++, i += 4) shadow[i] = Math.round(blurred[p] * SHADOW.opacity)
  return sharp(shadow, { raw: { width: canvas.width, height: canvas.height, channels: 4 } })
    .composite([{ input: canvas.data, raw: { width: canvas.width, height: canvas.height, channels: 4 } }])
    .raw()
    .toBuffer()
}

/** The backdrop: a colour, or the background image scaled to cover the output (centred). */
async function backdrop(width: number, height: number, options: CutoutOutputOptions): Promise<Sharp | null> {
  if (options.backgroundImage) {
    const cover = await sharp(options.backgroundImage, { limitInputPixels: MAX_INPUT_PIXELS, pages: 1 })
      .rotate()
      .toColourspace('srgb')
      .resize(width, height, { fit: 'cover', position: 'centre' })
      .removeAlpha()
      .raw()
      .toBuffer()
    return sharp(cover, { raw: { width, height, channels: 3 } })
  }
  if (options.background) return sharp({ create: { width, height, channels: 3, background: options.background } })
  return null
}

function zipOf(entries: Array<{ name: string; bytes: Buffer }>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile()
    // Already-compressed images gain nothing from deflate.
    for (const entry of entries) zip.addBuffer(entry.bytes, entry.name, { compress: false })
    zip.end()
    const chunks: Buffer[] = []
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

/**
 * The remover's output from the photo and its refined matte (`alpha`, one byte a pixel at the
 * photo's size). `upload` is the file as sent (format=auto asks whether it was a JPEG).
 */
export async function composeCutout(image: RgbaImage, matte: Uint8Array, upload: Buffer, options: CutoutOutputOptions): Promise<ComposedCutout> {
  const alpha = options.hardEdges ? matte.map((v) => (v >= 128 ? 255 : 0)) : matte
  const cutoutData = Buffer.from(image.data)
  for (let p = 0, i = 0; p < alpha.length; p++, i += 4) {
    const a = cutoutAlpha(alpha[p], cutoutData[i + 3])
    if (a === 0) cutoutData.writeUInt32LE(0, i)
    else cutoutData[i + 3] = a
  }
  const cutout = { data: cutoutData, width: image.width, height: image.height }
  const subject = foregroundBox(alpha, image.width, image.height)
  const moves = options.crop !== undefined || options.scale !== undefined || options.position !== undefined
  let note: string | null = null
  let canvas: Canvas
  if (subject && options.crop) canvas = await cropToSubject(cutout, subject, options.crop.margin)
  else if (subject && moves) canvas = await placeSubject(cutout, subject, options.scale, options.position ?? { x: 0.5, y: 0.5 })
  else {
    if (moves) note = NO_SUBJECT_NOTE
    canvas = { ...cutout, foreground: subject }
  }
  if (options.maxPixels) canvas = await limitPixels(canvas, options.maxPixels)
  const { width, height, foreground } = canvas
  const answer = (bytes: Buffer, contentType: string): ComposedCutout => ({ bytes, contentType, width, height, foreground, note })

  if (options.channels === 'alpha') {
    return answer(await grey(alphaOf(canvas), width, height).png().toBuffer(), CONTENT_TYPES.png)
  }
  const layer = options.shadow ? await withShadow(canvas) : canvas.data
  const back = await backdrop(width, height, options)
  // Materialised before encoding: sharp composites last, after any flatten an encoder asks for.
  const flat = back ? await back.composite([{ input: layer, raw: { width, height, channels: 4 } }]).raw().toBuffer({ resolveWithObject: true }) : null
  const composed = flat
    ? sharp(flat.data, { raw: { width, height, channels: flat.info.channels } })
    : sharp(layer, { raw: { width, height, channels: 4 } })
  if (options.format === 'zip') {
    // remove.bg's zip: the colours as a JPEG and the alpha as a PNG, to be joined by the client.
    const colours = await composed.removeAlpha().jpeg({ quality: jpegQualityFor(inputFamily(upload)), mozjpeg: true }).toBuffer()
    const mask = await grey(alphaOf(canvas), width, height).png().toBuffer()
    return answer(await zipOf([{ name: 'color.jpg', bytes: colours }, { name: 'alpha.png', bytes: mask }]), 'application/zip')
  }
  // Absent is `auto`: a result over a backdrop is opaque and follows the upload; a cutout stays PNG.
  const encoding = chooseEncoding(options.format ?? 'auto', upload, back !== null)
  return answer(await encodeWith(composed, encoding), CONTENT_TYPES[encoding.format])
}
