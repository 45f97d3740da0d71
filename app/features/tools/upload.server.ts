// The upload pipeline every tool shares: a multipart body read with a hard byte cap, the file's
// real type read from its bytes, a pixel limit checked on the header before anything is decoded,
// and decoding into sRGB 8-bit RGBA with the EXIF orientation applied.
import { unstable_parseMultipartFormData, type UploadHandler } from '@remix-run/node'
import { fileTypeFromBuffer } from 'file-type'
import sharp, { type Metadata } from 'sharp'
import { MEGABYTE, TOOLS, type ToolSlug } from './catalog'
import { badRequest, tooLarge, ToolError, unsupportedType } from './errors.server'
import type { RgbaImage } from './image'

/** Largest decoded input: 40 megapixels is 160 MB of RGBA, and a 12 MP phone photo fits easily. */
export const MAX_INPUT_PIXELS = 40_000_000
export const MAX_INPUT_SIDE = 16_384
/** Room for the form's other fields and multipart boundaries on top of the file itself. */
const FORM_OVERHEAD_BYTES = 64 * 1024

export interface UploadedFile {
  bytes: Buffer
  /** The name the client gave, for naming the download only: never trusted for the type. */
  name: string
}

export interface ParsedUpload {
  file: UploadedFile | null
  fields: Record<string, string>
}

export function fileTooLargeMessage(tool: ToolSlug): string {
  return `File too large (max ${TOOLS[tool].maxMegabytes}MB)`
}

class BodyTooLarge extends Error {}

/**
 * Reads the multipart body, keeping only the tool's file field and the named text fields. The
 * whole body is capped at the tool's limit (plus a little for the other fields), counted as bytes
 * arrive, so an oversized upload is cut off instead of buffered.
 */
export async function parseToolUpload(request: Request, tool: ToolSlug, fieldNames: readonly string[]): Promise<ParsedUpload> {
  const definition = TOOLS[tool]
  const fileLimit = definition.maxMegabytes * MEGABYTE
  const bodyLimit = fileLimit + FORM_OVERHEAD_BYTES

  const contentType = request.headers.get('content-type') ?? ''
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    throw badRequest(`Send the ${definition.fileField === 'svg' ? 'SVG' : 'image'} as multipart/form-data in the "${definition.fileField}" field.`)
  }
  const declaredLength = Number(request.headers.get('content-length') ?? '')
  if (Number.isFinite(declaredLength) && declaredLength > bodyLimit) throw tooLarge(fileTooLargeMessage(tool))

  let received = 0
  let file: UploadedFile | null = null
  const fields: Record<string, string> = {}

  const handler: UploadHandler = async ({ name, filename, data }) => {
    const chunks: Uint8Array[] = []
    for await (const chunk of data) {
      received += chunk.byteLength
      if (received > bodyLimit) throw new BodyTooLarge()
      chunks.push(chunk)
    }
    const bytes = Buffer.concat(chunks)
    if (name === definition.fileField && filename !== undefined) {
      if (bytes.byteLength > fileLimit) throw new BodyTooLarge()
      // A repeated file field keeps the first file: one run works on one file.
      file ??= { bytes, name: filename }
    } else if (fieldNames.includes(name) && filename === undefined && !(name in fields)) {
      fields[name] = bytes.toString('utf8')
    }
    return undefined
  }

  try {
    await unstable_parseMultipartFormData(request, handler)
  } catch (error) {
    if (error instanceof BodyTooLarge) throw tooLarge(fileTooLargeMessage(tool))
    throw badRequest('The upload could not be read: send a multipart/form-data body.')
  }
  return { file, fields }
}

export function requireFile(upload: ParsedUpload, tool: ToolSlug): UploadedFile {
  const definition = TOOLS[tool]
  const what = definition.fileField === 'svg' ? 'an SVG file' : 'an image'
  if (!upload.file) throw badRequest(`Choose ${what} to upload (field "${definition.fileField}").`)
  if (upload.file.bytes.byteLength === 0) throw badRequest('The uploaded file is empty.')
  return upload.file
}

export function invalidTypeMessage(tool: ToolSlug): string {
  const definition = TOOLS[tool]
  return definition.fileField === 'svg'
    ? 'Invalid file type. Upload an SVG file.'
    : `Invalid file type. Upload a ${definition.acceptedLabel} image.`
}

/** The raster type, read from the magic bytes; the name and declared type are ignored. */
export async function sniffImageType(bytes: Buffer, tool: ToolSlug): Promise<string> {
  const detected = await fileTypeFromBuffer(bytes)
  if (!detected || !TOOLS[tool].acceptedTypes.includes(detected.mime)) throw unsupportedType(invalidTypeMessage(tool))
  return detected.mime
}

export interface ImageHeader {
  width: number
  height: number
  /** Frames or pages in the file (animated WebP/GIF, multi-page TIFF); only the first is used. */
  pages: number
}

/** Reads only the header: a small file that claims 30000×30000 pixels is refused here, never decoded. */
export async function readImageHeader(bytes: Buffer): Promise<ImageHeader> {
  let metadata: Metadata
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch (error) {
    throw new ToolError(400, 'The image could not be read: the file is damaged or truncated.', { cause: error })
  }
  const width = metadata.autoOrient?.width ?? metadata.width
  const height = metadata.autoOrient?.height ?? metadata.height
  if (!width || !height) throw badRequest('The image could not be read: it has no size.')
  checkPixelLimit(width, height)
  return { width, height, pages: metadata.pages ?? 1 }
}

export function checkPixelLimit(width: number, height: number): void {
  if (width * height > MAX_INPUT_PIXELS || width > MAX_INPUT_SIDE || height > MAX_INPUT_SIDE) {
    throw tooLarge(
      `Image too large: ${width}×${height} pixels. The limit is ${MAX_INPUT_PIXELS / 1_000_000} megapixels and ${MAX_INPUT_SIDE} pixels a side.`,
    )
  }
}

export const FIRST_FRAME_NOTE = 'Only the first frame of this animated or multi-page image was used.'

/**
 * Decodes the first frame into sRGB 8-bit RGBA: EXIF orientation applied; grey, CMYK, 16-bit,
 * palette and alpha inputs all converge here. Metadata never survives (nothing is copied forward).
 */
export async function decodeToRgba(bytes: Buffer): Promise<RgbaImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1, page: 0 })
      .rotate()
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
    if (info.channels !== 4) throw new Error(`decoded to ${info.channels} channels`)
    return { data, width: info.width, height: info.height }
  } catch (error) {
    throw new ToolError(400, 'The image could not be decoded: the file is damaged or truncated.', { cause: error })
  }
}

export interface DecodedUpload {
  image: RgbaImage
  mime: string
  header: ImageHeader
  notes: string[]
}

/** Sniff, check the header, then decode: the order that keeps a bad file from costing anything. */
export async function decodeUpload(file: UploadedFile, tool: ToolSlug): Promise<DecodedUpload> {
  const mime = await sniffImageType(file.bytes, tool)
  const header = await readImageHeader(file.bytes)
  const image = await decodeToRgba(file.bytes)
  return { image, mime, header, notes: header.pages > 1 ? [FIRST_FRAME_NOTE] : [] }
}
