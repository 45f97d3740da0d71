// The `format` option every raster tool takes: the file type of the result. The models work in
// RGBA and the tools encode a lossless PNG; a client that wants a smaller file asks for JPEG or
// WebP, or `auto` (JPEG when the result is opaque and the upload was a JPEG: a phone photo comes
// back as the kind of file it went in as, not as a PNG five times its size). PNG stays the default
// everywhere: the spec's endpoints answer PNG and clients rely on it (docs/decisions/095).
import { fileTypeFromBuffer } from 'file-type'
import sharp, { type Sharp } from 'sharp'
import { z } from 'zod'
import { parseField } from './runners/options.server'

export const OUTPUT_FORMATS = ['png', 'jpg', 'webp', 'auto'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]
/** What a result is finally encoded as (`auto` resolved). */
export type EncodedFormat = Exclude<OutputFormat, 'auto'>

export const FORMAT_MESSAGE = 'format must be png, jpg, webp or auto.'
export const JPEG_QUALITY = 90
export const WEBP_QUALITY = 90

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

/** The `format` field as sent; absent (or empty) is the tool's default, PNG. */
export function parseFormatField(fields: Record<string, string>): { format?: OutputFormat } {
  const format = parseField(formatSchema, fields.format)
  return format && format !== 'png' ? { format } : {}
}

/** The format an option object asks for (options travel as plain JSON). */
export function requestedFormat(options: unknown): OutputFormat {
  const format = (options as { format?: unknown } | null)?.format
  return typeof format === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(format) ? (format as OutputFormat) : 'png'
}

/** `auto`: JPEG when the result is opaque and the upload was a JPEG; PNG otherwise. */
export async function resolveFormat(format: OutputFormat, upload: Buffer, opaque: boolean): Promise<EncodedFormat> {
  if (format !== 'auto') return format
  if (!opaque) return 'png'
  return (await fileTypeFromBuffer(upload))?.mime === 'image/jpeg' ? 'jpg' : 'png'
}

/** Encodes sharp's pipeline as `format` (no metadata is copied: sharp drops it unless asked). */
export async function encodeWith(pipeline: Sharp, format: EncodedFormat): Promise<Buffer> {
  if (format === 'jpg') return pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: true }).toBuffer()
  if (format === 'webp') return pipeline.webp({ quality: WEBP_QUALITY, alphaQuality: 100 }).toBuffer()
  return pipeline.png().toBuffer()
}

export const FLATTENED_NOTE = 'JPEG has no transparency: the transparent parts were put on white.'

/**
 * A tool's PNG result in the format asked for. PNG (the default) is passed through untouched; a
 * transparent result asked for as JPEG is put on white and the note says so.
 */
export async function convertResult(
  png: Buffer,
  format: OutputFormat,
  upload: Buffer,
): Promise<{ bytes: Buffer; contentType: string; note: string | null }> {
  if (format === 'png') return { bytes: png, contentType: CONTENT_TYPES.png, note: null }
  const stats = await sharp(png).stats()
  const encoded = await resolveFormat(format, upload, stats.isOpaque)
  if (encoded === 'png') return { bytes: png, contentType: CONTENT_TYPES.png, note: null }
  const bytes = await encodeWith(sharp(png), encoded)
  return { bytes, contentType: CONTENT_TYPES[encoded], note: encoded === 'jpg' && !stats.isOpaque ? FLATTENED_NOTE : null }
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
