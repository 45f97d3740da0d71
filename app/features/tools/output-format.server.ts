// The `format` option every raster tool takes: the file type of the result. The models work in
// RGBA and the tools encode a lossless PNG; what the caller gets is decided here, once:
// - absent (or `auto`), the result follows its input (docs/decisions/173): an opaque result comes
//   back in the upload's family (a JPEG as a JPEG at a quality from the upload's own, within a
//   measured range, a lossy WebP as a lossy WebP, a lossless WebP as a lossless one, anything else as PNG);
//   a result with alpha stays PNG. A phone photo no longer comes back as a PNG ten times its size.
// - `png`, `jpg` (`jpeg`), `webp`: that type, whatever the input.
import sharp, { type Sharp } from 'sharp'
import { z } from 'zod'
import { parseField } from './runners/options.server'

import { OUTPUT_FORMATS, type OutputFormat } from '../../catalog/tools'

export { OUTPUT_FORMATS, type OutputFormat }
/** What a result is finally encoded as (`auto` resolved). */
export type EncodedFormat = Exclude<OutputFormat, 'auto'>
/** A format the caller chose; absent from the options means `auto`, the default. */
export type ChosenFormat = EncodedFormat

export const FORMAT_MESSAGE = 'format must be png, jpg, webp or auto.'

/**
 * JPEG quality: the upload's own (estimated from its quantisation tables) plus `headroom` (a
 * re-encode is a second generation of loss), within floor..ceiling. Measured (decision 173, SSIM
 * against the lossless result): 90 is the lowest quality that keeps SSIM ≥ 0.98 on every fixture
 * and tool, at most 0.75× the upload's bytes per pixel for a photo saved at 80 or more; an upload
 * saved coarsely (quality 35) needs only 85 for that SSIM, and at 90 its result would weigh 1.47×
 * its bytes per pixel (1.18× at 85).
 */
export const JPEG_QUALITY = { floor: 85, ceiling: 90, headroom: 10 } as const
/** A JPEG asked for explicitly (`format=jpg`) of an input that says no quality (PNG, WebP). */
export const JPEG_DEFAULT_QUALITY = JPEG_QUALITY.ceiling
/** Lossy WebP's quality (decision 173: SSIM ≥ 0.98 on the fixtures' photos at about 0.7× a JPEG's bytes). */
export const WEBP_QUALITY = 85

export const CONTENT_TYPES: Record<EncodedFormat, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' }
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'application/zip': 'zip' }

const formatSchema = z
  .string()
  .trim()
  .toLowerCase()
  // `jpeg` is what many clients (and the SVG converter's own field) call it.
  .transform((v) => (v === 'jpeg' ? 'jpg' : v))
  .refine((v) => v === '' || (OUTPUT_FORMATS as readonly string[]).includes(v), FORMAT_MESSAGE)
  .transform((v) => (v === '' ? undefined : (v as OutputFormat)))
  .optional()

/** The `format` field as sent; absent, empty or `auto` is the default (follow the input), kept out of the options. */
export function parseFormatField(fields: Record<string, string>): { format?: ChosenFormat } {
  const format = parseField(formatSchema, fields.format)
  return format && format !== 'auto' ? { format } : {}
}

/** The format an option object asks for (options travel as plain JSON); absent is `auto`. */
export function requestedFormat(options: unknown): OutputFormat {
  const format = (options as { format?: unknown } | null)?.format
  return typeof format === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(format) ? (format as OutputFormat) : 'auto'
}

/** What the upload was, as far as the output's encoding cares. */
export type InputFamily = { kind: 'jpeg'; quality: number | null } | { kind: 'webp'; lossless: boolean } | { kind: 'other' }

// The JPEG standard's (Annex K) luminance table, in the zigzag order a DQT segment stores it.
const STANDARD_LUMA_ZIGZAG = [
  16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40, 26, 24, 22, 22, 24, 49, 35, 37, 29, 40, 58, 51, 61, 60, 57, 51, 56, 55, 64, 72, 92, 78, 64,
  68, 87, 69, 55, 56, 80, 109, 81, 87, 95, 98, 103, 104, 103, 62, 77, 113, 121, 112, 100, 120, 92, 101, 103, 99,
]

/**
 * The quality a JPEG was saved at, as libjpeg's scale of the standard table (1..100), from its first
 * quantisation table; null when there is none to read. Cameras use tables of their own: this is
 * the libjpeg quality whose table is, on average, as coarse.
 */
export function jpegQuality(bytes: Buffer): number | null {
  let at = 2
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]
    const length = bytes.readUInt16BE(at + 2)
    // Start of scan: the tables are all before it.
    if (marker === 0xda) return null
    if (marker === 0xdb && at + 4 + 65 <= bytes.length) {
      const precision = bytes[at + 4] >> 4
      const table = at + 5
      if (table + 64 * (precision ? 2 : 1) > bytes.length) return null
      let sum = 0
      for (let k = 0; k < 64; k++) {
        const q = precision ? bytes.readUInt16BE(table + 2 * k) : bytes[table + k]
        sum += (q * 100) / STANDARD_LUMA_ZIGZAG[k]
      }
      const scale = sum / 64
      const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
      return Math.max(1, Math.min(100, Math.round(quality)))
    }
    at += 2 + length
  }
  return null
}

/** A WebP's first image chunk is VP8L (lossless) or VP8 (lossy); an extended file lists its chunks first. */
function webpIsLossless(bytes: Buffer): boolean {
  for (let at = 12; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at + 4) + (bytes.readUInt32LE(at + 4) & 1)) {
    const chunk = bytes.toString('latin1', at, at + 4)
    if (chunk === 'VP8L') return true
    if (chunk === 'VP8 ') return false
  }
  return false
}

/** The upload's family, from its bytes (the client's name and type are not trusted). */
export function inputFamily(upload: Buffer): InputFamily {
  if (upload.length > 3 && upload[0] === 0xff && upload[1] === 0xd8 && upload[2] === 0xff) return { kind: 'jpeg', quality: jpegQuality(upload) }
  if (upload.length > 12 && upload.toString('latin1', 0, 4) === 'RIFF' && upload.toString('latin1', 8, 12) === 'WEBP') {
    return { kind: 'webp', lossless: webpIsLossless(upload) }
  }
  return { kind: 'other' }
}

/** How a result is encoded: the type, and for JPEG its quality, for WebP whether lossless. */
export interface Encoding {
  format: EncodedFormat
  jpegQuality?: number
  webpLossless?: boolean
}

/** The JPEG quality for a result of this input: from the upload's own (JPEG_QUALITY), else the ceiling. */
export function jpegQualityFor(family: InputFamily): number {
  if (family.kind !== 'jpeg' || family.quality === null) return JPEG_DEFAULT_QUALITY
  return Math.max(JPEG_QUALITY.floor, Math.min(JPEG_QUALITY.ceiling, family.quality + JPEG_QUALITY.headroom))
}

/**
 * The default rule and the explicit choices in one place. `opaque`: the result has no alpha channel
 * (the tools' encoders drop it when every pixel is opaque).
 */
export function chooseEncoding(format: OutputFormat, upload: Buffer, opaque: boolean): Encoding {
  const family = inputFamily(upload)
  if (format === 'png') return { format: 'png' }
  if (format === 'jpg') return { format: 'jpg', jpegQuality: jpegQualityFor(family) }
  if (format === 'webp') return { format: 'webp', webpLossless: family.kind === 'webp' && family.lossless }
  // auto: alpha stays PNG; an opaque result follows the upload's family.
  if (!opaque) return { format: 'png' }
  if (family.kind === 'jpeg') return { format: 'jpg', jpegQuality: jpegQualityFor(family) }
  if (family.kind === 'webp') return { format: 'webp', webpLossless: family.lossless }
  return { format: 'png' }
}

/** Encodes sharp's pipeline as chosen (no metadata is copied: sharp drops it unless asked). */
export async function encodeWith(pipeline: Sharp, encoding: Encoding): Promise<Buffer> {
  if (encoding.format === 'jpg') {
    return pipeline
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: encoding.jpegQuality ?? JPEG_DEFAULT_QUALITY, mozjpeg: true })
      .toBuffer()
  }
  if (encoding.format === 'webp') {
    return encoding.webpLossless ? pipeline.webp({ lossless: true }).toBuffer() : pipeline.webp({ quality: WEBP_QUALITY, alphaQuality: 100 }).toBuffer()
  }
  return pipeline.png().toBuffer()
}

export const FLATTENED_NOTE = 'JPEG has no transparency: the transparent parts were put on white.'

/**
 * A tool's PNG result in the format asked for (absent: `auto`). A result that stays PNG is passed
 * through untouched; whether it is opaque is read from its header (no decode); a transparent result
 * asked for as JPEG is put on white and the note says so.
 */
export async function convertResult(
  png: Buffer,
  format: OutputFormat,
  upload: Buffer,
): Promise<{ bytes: Buffer; contentType: string; note: string | null }> {
  if (format === 'png') return { bytes: png, contentType: CONTENT_TYPES.png, note: null }
  const { hasAlpha } = await sharp(png).metadata()
  const encoding = chooseEncoding(format, upload, !hasAlpha)
  if (encoding.format === 'png') return { bytes: png, contentType: CONTENT_TYPES.png, note: null }
  const bytes = await encodeWith(sharp(png), encoding)
  // Alpha channel present but every pixel opaque (the restorer keeps it for a transparent input):
  // flattening changed nothing visible only when the stats say so.
  const flattened = encoding.format === 'jpg' && hasAlpha && !(await sharp(png).stats()).isOpaque
  return { bytes, contentType: CONTENT_TYPES[encoding.format], note: flattened ? FLATTENED_NOTE : null }
}

/** A download name whose extension says what the file is. */
export function nameForType(filename: string, contentType: string): string {
  const extension = EXTENSIONS[contentType]
  if (!extension) return filename
  const current = /\.([^.]*)$/.exec(filename)?.[1]?.toLowerCase()
  // `.jpeg` (the SVG converter's own name) is a JPEG's extension too.
  if (current === extension || (current === 'jpeg' && extension === 'jpg')) return filename
  const stem = filename.replace(/\.[^.]*$/, '')
  return `${stem}.${extension}`
}
