// The upload pipeline every tool shares: a multipart body streamed through busboy with a hard byte cap, the file's
// real type read from its bytes, a pixel limit checked on the header before anything is decoded,
// and decoding into sRGB 8-bit RGBA with the EXIF orientation applied.
import busboy, { type Busboy } from 'busboy'
import { fileTypeFromBuffer } from 'file-type'
import sharp, { type Metadata } from 'sharp'
import { MEGABYTE, TOOLS, type ToolSlug } from '../../catalog/tools'
import { badRequest, tooLarge, ToolError, unsupportedType } from '../jobs/errors.server'
import { isFileComplete } from './file-complete.server'
import type { RgbaImage } from './image'

/** Largest decoded input: 40 megapixels is 160 MB of RGBA, and a 12 MP phone photo fits easily. */
export const MAX_INPUT_PIXELS = 40_000_000
export const MAX_INPUT_SIDE = 16_384
/** Room for the form's other fields and multipart boundaries on top of the file itself. */
export const FORM_OVERHEAD_BYTES = 64 * 1024
/**
 * What one tool form needs, with room to spare: the file, a few options, and the parts a browser
 * adds (an empty file input, a submit button). A body past these is refused as soon as the limit is
 * reached, so a body of thousands of tiny fields costs no more than reading up to that point.
 */
export const UPLOAD_LIMITS = { parts: 24, files: 4, fields: 20, fieldBytes: 8 * 1024, fieldNameBytes: 200, headerPairs: 16 } as const

export interface UploadedFile {
  bytes: Buffer
  /** The name the client gave, for naming the download only: never trusted for the type or a path. */
  name: string
}

export interface ParsedUpload {
  file: UploadedFile | null
  /** The tool's optional second file (its `secondField`), when one with bytes was sent. */
  second?: UploadedFile | null
  fields: Record<string, string>
}

export function fileTooLargeMessage(tool: ToolSlug): string {
  return `File too large (max ${TOOLS[tool].maxMegabytes}MB)`
}

/** The most a tool's upload may weigh: its file (and its optional second file) and the form around them. */
export function toolBodyLimit(tool: ToolSlug, hasSecondFile: boolean): number {
  return (hasSecondFile ? 2 : 1) * TOOLS[tool].maxMegabytes * MEGABYTE + FORM_OVERHEAD_BYTES
}

export const EMPTY_FILE_MESSAGE = 'The uploaded file is empty.'
export const UNREADABLE_UPLOAD_MESSAGE = 'The upload could not be read: send a multipart/form-data body.'
export const TOO_MANY_PARTS_MESSAGE = `The upload has too many parts: send the file and its options only (at most ${UPLOAD_LIMITS.parts}).`

/** The media type without its parameters, compared case-insensitively (RFC 2045 §5.1). */
function isMultipartFormData(contentType: string): boolean {
  return contentType.split(';', 1)[0]!.trim().toLowerCase() === 'multipart/form-data'
}

/**
 * Reads a tool's form: its one file field (the first file), its optional second file field (the
 * remover's background image: the same size limit, and the body may carry both), and the named
 * option fields.
 */
export async function parseToolUpload(
  request: Request,
  tool: ToolSlug,
  fieldNames: readonly string[],
  secondField?: string,
): Promise<ParsedUpload> {
  const definition = TOOLS[tool]
  const fileLimit = definition.maxMegabytes * MEGABYTE
  const form = await readMultipartForm(request, {
    fileFields: secondField ? [definition.fileField, secondField] : [definition.fileField],
    maxFiles: secondField ? 2 : 1,
    fieldNames,
    fileLimit,
    bodyLimit: toolBodyLimit(tool, Boolean(secondField)),
    tooLargeMessage: fileTooLargeMessage(tool),
    notMultipartMessage: `Send the ${definition.fileField === 'svg' ? 'SVG' : 'image'} as multipart/form-data in the "${definition.fileField}" field.`,
  })
  return narrowFiles(form, definition.fileField, secondField, form.fields)
}

/** The first file of the tool's field, and the first non-empty one of its second field. */
function narrowFiles(form: MultipartForm, fileField: string, secondField: string | undefined, fields: Record<string, string>): ParsedUpload {
  const pick = (field: string) => {
    const found = form.files.find((f) => f.field === field)
    return found ? { bytes: found.bytes, name: found.name } : null
  }
  // A browser sends an empty part for a file input left empty: that is no second file.
  const second = secondField ? pick(secondField) : null
  return { file: pick(fileField), second: second && second.bytes.byteLength > 0 ? second : null, fields }
}

/** Every tool's file fields and option fields, for a form whose `tool` field says which tool it is for. */
export function anyToolFormLimits(
  extraFields: readonly string[],
  maxFiles: number,
  totalBytes: number,
  /** The tools' optional second file fields (the remover's background image). */
  secondFileFields: readonly string[] = [],
): FormLimits {
  return {
    fileFields: [...new Set([...Object.values(TOOLS).map((t) => t.fileField), ...secondFileFields])],
    maxFiles,
    fieldNames: extraFields,
    fileLimit: Math.max(...Object.values(TOOLS).map((t) => t.maxMegabytes)) * MEGABYTE,
    bodyLimit: totalBytes + FORM_OVERHEAD_BYTES,
    tooLargeMessage: 'Request too large.',
    notMultipartMessage: 'Send multipart/form-data with a tool field and the tool\'s own fields.',
  }
}

/** A form read for any tool, narrowed to `tool`: its file fields' first files (within its limit) and its option fields. */
export function toolUploadFrom(form: MultipartForm, tool: ToolSlug, fieldNames: readonly string[], secondField?: string): ParsedUpload {
  const definition = TOOLS[tool]
  const limit = definition.maxMegabytes * MEGABYTE
  const oversized = form.files.some((f) => (f.field === definition.fileField || f.field === secondField) && f.bytes.byteLength > limit)
  if (oversized) throw tooLarge(fileTooLargeMessage(tool))
  const fields = Object.fromEntries(Object.entries(form.fields).filter(([name]) => fieldNames.includes(name)))
  return narrowFiles(form, definition.fileField, secondField, fields)
}

export interface FormLimits {
  /** The file fields kept (others are skipped unread). */
  fileFields: readonly string[]
  /** Files kept; later ones in the kept fields are skipped unread. */
  maxFiles: number
  /** The text fields kept (the first value of each). */
  fieldNames: readonly string[]
  fileLimit: number
  bodyLimit: number
  tooLargeMessage: string
  notMultipartMessage: string
  /** Parts allowed in all (files + fields); defaults to UPLOAD_LIMITS.parts. */
  parts?: number
  /** Bytes one text field may hold; defaults to UPLOAD_LIMITS.fieldBytes (remove.bg's image_file_b64 needs a file's worth). */
  fieldBytes?: number
  /** Set: a file past maxFiles in a kept field is refused with it (else skipped unread: a tool run uses its first file). */
  tooManyFilesMessage?: string
}

export interface MultipartForm {
  files: Array<UploadedFile & { field: string }>
  fields: Record<string, string>
}

/**
 * The one multipart reader (tool runs, POST /api/jobs/, batches): busboy over the body with every
 * byte counted as it arrives. Past the body limit or a file's limit the read stops with 413, so an
 * oversized upload is cut off instead of buffered. Any RFC 7578 form busboy reads is accepted: a
 * quoted boundary, parameters in any order, any case, file names with `;`, `=`, quotes or non-ASCII
 * characters (also as filename*), and a file part without a Content-Type.
 */
export async function readMultipartForm(request: Request, limits: FormLimits): Promise<MultipartForm> {
  const contentType = request.headers.get('content-type') ?? ''
  if (!isMultipartFormData(contentType)) throw badRequest(limits.notMultipartMessage)
  const declaredLength = Number(request.headers.get('content-length') ?? '')
  if (Number.isFinite(declaredLength) && declaredLength > limits.bodyLimit) throw tooLarge(limits.tooLargeMessage)
  if (!request.body) throw badRequest(UNREADABLE_UPLOAD_MESSAGE)

  const parts = limits.parts ?? UPLOAD_LIMITS.parts
  let parser: Busboy
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // Browsers send a file name's UTF-8 bytes as they are; filename* says its charset itself.
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.fileLimit,
        files: Math.max(UPLOAD_LIMITS.files, limits.maxFiles + 2),
        fields: UPLOAD_LIMITS.fields,
        parts,
        fieldSize: limits.fieldBytes ?? UPLOAD_LIMITS.fieldBytes,
        fieldNameSize: UPLOAD_LIMITS.fieldNameBytes,
        headerPairs: UPLOAD_LIMITS.headerPairs,
      },
    })
  } catch (error) {
    // No boundary, or one busboy cannot use.
    throw new ToolError(400, UNREADABLE_UPLOAD_MESSAGE, { cause: error })
  }
  return readParts(request.body, parser, limits, parts)
}

function readParts(body: ReadableStream<Uint8Array>, parser: Busboy, limits: FormLimits, parts: number): Promise<MultipartForm> {
  const fields: Record<string, string> = {}
  const files: MultipartForm['files'] = []
  let taken = 0
  const reader = body.getReader()
  const tooManyPartsMessage = parts === UPLOAD_LIMITS.parts ? TOO_MANY_PARTS_MESSAGE : `The upload has too many parts (at most ${parts}).`

  return new Promise<MultipartForm>((resolve, reject) => {
    let settled = false
    // The first refusal wins; the rest of the body is not read.
    const fail = (error: ToolError) => {
      if (settled) return
      settled = true
      reader.cancel().catch(() => {})
      parser.removeAllListeners()
      parser.on('error', () => {})
      parser.destroy()
      reject(error)
    }
    const tooManyParts = () => fail(badRequest(tooManyPartsMessage))

    parser.on('file', (name, stream, info) => {
      // A refusal destroys the parser, which errors the part being read: already answered.
      stream.on('error', () => {})
      // A form that says how to refuse extra files (a batch) drops none of them silently.
      if (limits.fileFields.includes(name) && taken >= limits.maxFiles && limits.tooManyFilesMessage) return fail(badRequest(limits.tooManyFilesMessage))
      if (!limits.fileFields.includes(name) || taken >= limits.maxFiles) {
        // Not ours, or more files than a run takes (one run works on one file): skipped unread.
        stream.resume()
        return
      }
      taken++
      const index = files.length
      files.push({ field: name, bytes: Buffer.alloc(0), name: info.filename ?? '' })
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('limit', () => fail(tooLarge(limits.tooLargeMessage)))
      stream.on('end', () => {
        if (!settled) files[index]!.bytes = Buffer.concat(chunks)
      })
    })
    parser.on('field', (name, value, info) => {
      if (!limits.fieldNames.includes(name) || name in fields) return
      if (info.valueTruncated) return fail(badRequest(`The field "${name}" is too long.`))
      fields[name] = value
    })
    parser.on('partsLimit', tooManyParts)
    parser.on('filesLimit', limits.tooManyFilesMessage ? () => fail(badRequest(limits.tooManyFilesMessage!)) : tooManyParts)
    parser.on('fieldsLimit', tooManyParts)
    parser.on('error', (error) => fail(new ToolError(400, UNREADABLE_UPLOAD_MESSAGE, { cause: error })))
    parser.on('close', () => {
      if (settled) return
      settled = true
      resolve({ files, fields })
    })

    const pump = async () => {
      let received = 0
      for (;;) {
        const { done, value } = await reader.read()
        if (settled) return
        if (done) {
          parser.end()
          return
        }
        received += value.byteLength
        if (received > limits.bodyLimit) return fail(tooLarge(limits.tooLargeMessage))
        // Respect busboy's back-pressure: a slow consumer never makes the whole body pile up here.
        if (!parser.write(value)) await new Promise((resume) => parser.once('drain', resume))
      }
    }
    pump().catch((error: unknown) => fail(new ToolError(400, UNREADABLE_UPLOAD_MESSAGE, { cause: error })))
  })
}

export function requireFile(upload: ParsedUpload, tool: ToolSlug): UploadedFile {
  const definition = TOOLS[tool]
  const what = definition.fileField === 'svg' ? 'an SVG file' : 'an image'
  if (!upload.file) throw badRequest(`Choose ${what} to upload (field "${definition.fileField}").`)
  if (upload.file.bytes.byteLength === 0) throw badRequest(EMPTY_FILE_MESSAGE)
  return upload.file
}

export function invalidTypeMessage(tool: ToolSlug): string {
  const definition = TOOLS[tool]
  return definition.fileField === 'svg'
    ? 'Invalid file type. Upload an SVG file.'
    : `Invalid file type. Upload a ${definition.acceptedLabel} image.`
}

/**
 * Animated forms of an accepted format are that format: an APNG is a PNG whose first frame every
 * PNG reader shows. One rule for all animated input (APNG, animated WebP, and GIF where a tool
 * accepts GIF): the first frame is used and FIRST_FRAME_NOTE says so; the type alone decides
 * acceptance.
 */
const ANIMATED_VARIANT_OF: Record<string, string> = { 'image/apng': 'image/png' }

/** The raster type, read from the magic bytes; the name and declared type are ignored. */
export async function sniffImageType(bytes: Buffer, tool: ToolSlug): Promise<string> {
  const detected = await fileTypeFromBuffer(bytes)
  const mime = detected ? (ANIMATED_VARIANT_OF[detected.mime] ?? detected.mime) : null
  if (!mime || !TOOLS[tool].acceptedTypes.includes(mime)) throw unsupportedType(invalidTypeMessage(tool))
  return mime
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * The frame count an APNG declares (its acTL chunk, which must come before the image data), or 1.
 * libvips reads only an APNG's default image and reports no pages, so the count is read here.
 */
export function apngFrameCount(bytes: Buffer): number {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 1
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at)
    const type = bytes.toString('latin1', at + 4, at + 8)
    if (type === 'acTL' && at + 12 <= bytes.length) return Math.max(1, bytes.readUInt32BE(at + 8))
    if (type === 'IDAT' || type === 'IEND') return 1
    at += 12 + length
  }
  return 1
}

export interface ImageHeader {
  width: number
  height: number
  /** Frames or pages in the file (APNG, animated WebP/GIF, multi-page TIFF); only the first is used. */
  pages: number
}

const DAMAGED_FILE_MESSAGE = 'The image could not be read: the file is damaged or truncated.'

/**
 * Reads only the header (and walks the file's structure to its end, file-complete.server.ts): a small file that
 * claims 30000×30000 pixels, or one that stops short, is refused here, never decoded.
 */
export async function readImageHeader(bytes: Buffer): Promise<ImageHeader> {
  let metadata: Metadata
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch (error) {
    throw new ToolError(400, DAMAGED_FILE_MESSAGE, { cause: error })
  }
  const width = metadata.autoOrient?.width ?? metadata.width
  const height = metadata.autoOrient?.height ?? metadata.height
  if (!width || !height) throw badRequest('The image could not be read: it has no size.')
  checkPixelLimit(width, height)
  if (!(await isFileComplete(bytes, metadata.format))) throw new ToolError(400, DAMAGED_FILE_MESSAGE)
  return { width, height, pages: metadata.pages ?? (metadata.format === 'png' ? apngFrameCount(bytes) : 1) }
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
