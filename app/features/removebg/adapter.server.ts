// POST /api/v1.0/removebg: remove.bg's documented request in, remove.bg's answer out, with the
// studio's background remover in between (the same job path as POST /api/remove-bg/: charge, job,
// refund on failure). A remove.bg client switches by changing its base URL and its key.
// Every documented parameter is either honoured or refused with a 400 that says why: never a
// silent difference (docs/decisions/096).
import { apiKeyGate } from '~/features/api-keys/gate.server'
import { API_KEY_HEADER, presentedApiKey } from '~/features/api-keys/presented-key'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { ToolError } from '~/features/jobs/errors.server'
import { runToolSubmission } from '~/features/tools/submit.server'
import { type ToolSubmission } from '~/features/jobs/answer.server'
import { findJob } from '~/features/jobs/jobs.server'
import type { CutoutLayout } from '~/features/jobs/runner'
import { fileTooLargeMessage, FORM_OVERHEAD_BYTES, readMultipartForm, type MultipartForm } from '~/features/tools/upload.server'
import { readBoundedText } from '~/utils/bounded-body.server'
import { fetchRemoteImage, RemoteImageError } from './remote-image.server'

const TOOL = 'background-remover' as const
const FILE_BYTES = TOOLS[TOOL].maxMegabytes * MEGABYTE
/** A base64 text of a whole file, with room for a data: prefix and line breaks. */
const B64_FIELD_BYTES = Math.ceil((FILE_BYTES * 4) / 3) + 1024
/** The most a request may weigh: the image (a file, or its base64 text) and a background image file, with the other parameters. */
export const REMOVEBG_BODY_LIMIT = B64_FIELD_BYTES + FILE_BYTES + FORM_OVERHEAD_BYTES
/** The parameters read; any other is ignored, as remove.bg does. */
export const REMOVEBG_FIELDS = [
  'image_file_b64', 'image_url', 'size', 'type', 'type_level', 'format', 'roi', 'crop', 'crop_margin', 'scale', 'position',
  'channels', 'add_shadow', 'semitransparency', 'bg_color', 'bg_image_url', 'shadow_type', 'shadow_opacity',
] as const
const FILE_FIELDS = ['image_file', 'bg_image_file'] as const

/** remove.bg's size names → the output's pixel cap (megapixels). */
export const SIZE_MEGAPIXELS: Record<string, number> = {
  preview: 0.25, small: 0.25, regular: 0.25,
  medium: 1.5,
  hd: 4,
  full: 25, '4k': 25, auto: 25,
  // The studio's own input limit (40 MP) is below 50 MP: larger uploads are refused by it, with its message.
  '50mp': 40,
}
export const FOREGROUND_TYPES = ['auto', 'person', 'product', 'animal', 'car', 'graphic', 'transportation'] as const
const TYPE_LEVELS = ['none', '1', '2', 'latest']
const WHOLE_IMAGE_ROI = /^0(px|%)?\s+0(px|%)?\s+100%\s+100%$/

export interface RemoveBgError {
  status: number
  code: string
  title: string
}

class RemoveBgRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    title: string,
  ) {
    super(title)
  }
}

const invalid = (title: string) => new RemoveBgRefusal(400, 'invalid_parameters', title)
const unsupported = (title: string) => new RemoveBgRefusal(400, 'unsupported_parameter', title)
/** A body or image past the remover's limit: 413, as on every upload path of the studio (decision 161), in remove.bg's error shape. */
const tooLarge = (title: string) => new RemoveBgRefusal(413, 'file_too_large', title)

export const MISSING_KEY = 'Missing API Key: send your studio API key (fs_live_… or fs_test_…) in the X-Api-Key header.'
export const NO_SOURCE = 'No image given: send image_file, image_file_b64 or image_url.'
export const MANY_SOURCES = 'Send only one of image_file, image_file_b64 and image_url.'
export const REQUEST_TOO_LARGE = `Request too large (max ${TOOLS[TOOL].maxMegabytes}MB per image).`
export const TYPE_UNSUPPORTED =
  'type can only be auto here: the studio finds the foreground without a class hint, so a chosen type would not change the result.'

function removeBgErrorResponse(error: RemoveBgError, headers: Headers): Response {
  headers.set('Content-Type', 'application/json')
  headers.set('Cache-Control', 'no-store')
  headers.delete('Content-Disposition')
  return new Response(JSON.stringify({ errors: [{ title: error.title, code: error.code, detail: error.title }] }), { status: error.status, headers })
}

/** Anything but POST, in remove.bg's error shape. */
export function methodNotAllowed(): Response {
  const headers = new Headers({ Allow: 'POST' })
  return removeBgErrorResponse({ status: 405, code: 'method_not_allowed', title: 'Method not allowed: send POST.' }, headers)
}

interface RemoveBgRequest {
  fields: Record<string, string>
  files: Partial<Record<(typeof FILE_FIELDS)[number], Buffer>>
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** The body as remove.bg takes it: multipart/form-data, application/json or application/x-www-form-urlencoded. */
async function readRemoveBgRequest(request: Request): Promise<RemoveBgRequest> {
  const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (type === 'multipart/form-data') {
    let form: MultipartForm
    try {
      form = await readMultipartForm(request, {
        fileFields: FILE_FIELDS,
        maxFiles: 2,
        fieldNames: REMOVEBG_FIELDS,
        fileLimit: FILE_BYTES,
        bodyLimit: REMOVEBG_BODY_LIMIT,
        fieldBytes: B64_FIELD_BYTES,
        tooLargeMessage: fileTooLargeMessage(TOOL),
        notMultipartMessage: NO_SOURCE,
      })
    } catch (error) {
      if (error instanceof ToolError) throw error.status === 413 ? tooLarge(error.message) : invalid(error.message)
      throw error
    }
    const files: RemoveBgRequest['files'] = {}
    for (const file of form.files) if (file.bytes.byteLength > 0) files[file.field as (typeof FILE_FIELDS)[number]] ??= file.bytes
    return { fields: form.fields, files }
  }
  if (type === 'application/json' || type === 'application/x-www-form-urlencoded') {
    const text = await readBoundedText(request, REMOVEBG_BODY_LIMIT)
    if (text === null) throw tooLarge(REQUEST_TOO_LARGE)
    let entries: Array<[string, unknown]>
    if (type === 'application/json') {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        throw invalid('The JSON body could not be read.')
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('The JSON body must be an object of parameters.')
      entries = Object.entries(parsed)
    } else {
      entries = [...new URLSearchParams(text).entries()]
    }
    const fields: Record<string, string> = {}
    for (const [name, value] of entries) {
      const text = asText(value)
      if ((REMOVEBG_FIELDS as readonly string[]).includes(name) && text !== undefined) fields[name] = text
    }
    return { fields, files: {} }
  }
  throw invalid('Send the parameters as multipart/form-data, application/json or application/x-www-form-urlencoded.')
}

function decodeBase64Image(text: string): Buffer {
  const payload = text.trim().replace(/^data:[^,]*;base64,/i, '').replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload)) throw invalid('image_file_b64 is not valid base64.')
  const bytes = Buffer.from(payload, 'base64')
  if (bytes.byteLength === 0) throw invalid('image_file_b64 is empty.')
  if (bytes.byteLength > FILE_BYTES) throw tooLarge(fileTooLargeMessage(TOOL))
  return bytes
}

async function fromUrl(url: string, which: string): Promise<Buffer> {
  try {
    return await fetchRemoteImage(url, FILE_BYTES)
  } catch (error) {
    if (error instanceof RemoteImageError) {
      throw error.tooLarge ? tooLarge(`${which}: ${fileTooLargeMessage(TOOL)}`) : new RemoveBgRefusal(400, 'failed_to_download', `${which}: ${error.message}`)
    }
    throw error
  }
}

function boolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const v = value.trim().toLowerCase()
  if (v === 'true' || v === '1') return true
  if (v === 'false' || v === '0') return false
  throw invalid(`${name} must be true or false.`)
}

/** remove.bg's colour: hex without # (81d4fa, fff) or a colour name; the studio honours hex, white and black. */
function studioColour(value: string): string {
  const v = value.trim().toLowerCase()
  if (/^#?([0-9a-f]{3}|[0-9a-f]{6})$/.test(v)) return v.startsWith('#') ? v : `#${v}`
  if (/^#?([0-9a-f]{4}|[0-9a-f]{8})$/.test(v)) throw unsupported('bg_color with transparency (an alpha part) cannot be honoured: send an opaque colour.')
  if (v === 'white' || v === 'black') return v
  throw unsupported('bg_color must be a hex colour (81d4fa, fff) or white or black here: other colour names are not supported.')
}

/** The remove.bg parameters → the remover's option fields and files (what the studio's own endpoint takes). */
export async function toStudioForm(sent: RemoveBgRequest): Promise<{ form: MultipartForm; typeLevel: string }> {
  const f = sent.fields
  const sources = [sent.files.image_file, f.image_file_b64?.trim() || undefined, f.image_url?.trim() || undefined].filter((s) => s !== undefined)
  if (sources.length === 0) throw new RemoveBgRefusal(400, 'missing_source', NO_SOURCE)
  if (sources.length > 1) throw new RemoveBgRefusal(400, 'multiple_sources', MANY_SOURCES)

  const type = (f.type ?? 'auto').trim().toLowerCase() || 'auto'
  if (!(FOREGROUND_TYPES as readonly string[]).includes(type)) throw invalid(`type must be one of ${FOREGROUND_TYPES.join(', ')}.`)
  if (type !== 'auto') throw unsupported(TYPE_UNSUPPORTED)
  const typeLevel = (f.type_level ?? '1').trim().toLowerCase() || '1'
  if (!TYPE_LEVELS.includes(typeLevel)) throw invalid(`type_level must be one of ${TYPE_LEVELS.join(', ')}.`)
  const size = (f.size ?? 'preview').trim().toLowerCase() || 'preview'
  const megapixels = Object.hasOwn(SIZE_MEGAPIXELS, size) ? SIZE_MEGAPIXELS[size] : undefined
  if (megapixels === undefined) throw invalid('size must be preview, full, auto, 50MP, medium, hd, 4k, small or regular.')
  if (f.roi !== undefined && f.roi.trim() !== '' && !WHOLE_IMAGE_ROI.test(f.roi.trim().toLowerCase())) {
    throw unsupported('roi other than the whole image ("0% 0% 100% 100%") cannot be honoured: crop the image before sending it.')
  }
  if (f.shadow_type?.trim() || f.shadow_opacity?.trim()) throw unsupported('shadow_type and shadow_opacity are not supported: add_shadow=true casts the studio\'s one soft shadow.')

  const channels = (f.channels ?? 'rgba').trim().toLowerCase() || 'rgba'
  if (channels !== 'rgba' && channels !== 'alpha') throw invalid('channels must be rgba or alpha.')
  const format = (f.format ?? 'auto').trim().toLowerCase() || 'auto'
  if (!['auto', 'png', 'jpg', 'zip', 'webp'].includes(format)) throw invalid('format must be auto, png, jpg, zip or webp.')
  const crop = boolean('crop', f.crop)
  const shadow = boolean('add_shadow', f.add_shadow)
  const semitransparency = boolean('semitransparency', f.semitransparency)
  const bgColour = f.bg_color?.trim() ? studioColour(f.bg_color) : undefined
  const bgImageUrl = f.bg_image_url?.trim() || undefined
  if ([bgColour, bgImageUrl, sent.files.bg_image_file].filter((b) => b !== undefined).length > 1) {
    throw invalid('Send only one of bg_color, bg_image_url and bg_image_file.')
  }
  if (f.crop_margin?.trim() && crop !== true) throw invalid('crop_margin needs crop=true.')
  const position = f.position?.trim().toLowerCase()
  const scale = f.scale?.trim().toLowerCase()
  if (scale && scale !== 'original' && position === 'original') throw unsupported('scale with position=original cannot be honoured: a scaled subject is placed (center by default).')

  const hasBackground = bgColour !== undefined || bgImageUrl !== undefined || sent.files.bg_image_file !== undefined
  // remove.bg's auto: JPEG when the result is opaque (a background), PNG when it is transparent.
  let studioFormat = format === 'auto' ? (hasBackground && channels === 'rgba' ? 'jpg' : 'png') : format
  if (channels === 'alpha' && (format === 'jpg' || format === 'zip' || format === 'webp')) {
    throw unsupported('channels=alpha answers a grayscale PNG mask: send format=png or auto.')
  }
  // remove.bg's JPEG of a cutout without a background is on white.
  const background = bgColour ?? (studioFormat === 'jpg' && !hasBackground ? 'white' : undefined)
  if (channels === 'alpha') studioFormat = 'png'

  const fields: Record<string, string> = { max_megapixels: String(megapixels), format: studioFormat }
  if (background) fields.background = background
  if (channels === 'alpha') fields.channels = 'alpha'
  if (crop) fields.crop = 'true'
  if (f.crop_margin?.trim()) fields.crop_margin = f.crop_margin.trim()
  if (scale && scale !== 'original') fields.scale = scale
  if (position && position !== 'original') fields.position = position
  if (shadow) fields.shadow = 'true'
  if (semitransparency === false) fields.semitransparency = 'false'

  const image =
    sent.files.image_file ?? (f.image_file_b64?.trim() ? decodeBase64Image(f.image_file_b64) : await fromUrl(f.image_url!, 'image_url'))
  const files: MultipartForm['files'] = [{ field: TOOLS[TOOL].fileField, bytes: image, name: 'image' }]
  const backgroundImage = sent.files.bg_image_file ?? (bgImageUrl ? await fromUrl(bgImageUrl, 'bg_image_url') : undefined)
  if (backgroundImage) files.push({ field: 'background_image', bytes: backgroundImage, name: 'background' })
  return { form: { files, fields }, typeLevel }
}

/** A studio refusal in remove.bg's statuses: 400 for bad input, 402 for credits, 403 for the key, 429 for rate. */
export function asRemoveBgError(status: number, message: string): RemoveBgError {
  if (status === 401 || status === 403) return { status: 403, code: 'auth_failed', title: message }
  if (status === 402) return { status: 402, code: 'insufficient_credits', title: message }
  if (status === 429) return { status: 429, code: 'rate_limit_exceeded', title: message }
  if (status === 413) return { status: 413, code: 'file_too_large', title: message }
  if (status === 415) return { status: 400, code: 'invalid_file_type', title: message }
  if (status >= 400 && status < 500) return { status: 400, code: 'invalid_parameters', title: message }
  return { status, code: 'server_error', title: message }
}

/** Studio RateLimit-* headers, and remove.bg's X-RateLimit-* names for the same numbers. */
function rateHeaders(gate: Record<string, string>, headers: Headers) {
  for (const [name, value] of Object.entries(gate)) {
    headers.set(name, value)
    if (name.startsWith('RateLimit-')) headers.set(`X-${name}`, value)
  }
}

async function successResponse(submission: Extract<ToolSubmission, { ok: true }>, typeLevel: string, wantsJson: boolean, headers: Headers): Promise<Response> {
  for (const [name, value] of Object.entries(submission.headers)) headers.set(name, value)
  const job = await findJob(submission.jobId)
  const layout = (typeof job?.cutout_layout === 'string' ? JSON.parse(job.cutout_layout) : job?.cutout_layout) as CutoutLayout | null
  if (!layout?.foreground) {
    // remove.bg answers this as an error; the studio refunded the run (no subject, nothing delivered).
    return removeBgErrorResponse({ status: 400, code: 'unknown_foreground', title: 'Could not identify the foreground in the image.' }, headers)
  }
  const box = layout.foreground
  headers.set('X-Width', String(layout.width))
  headers.set('X-Height', String(layout.height))
  // The studio does not classify the foreground: remove.bg's catch-all class, unless no class was asked for.
  if (typeLevel !== 'none') headers.set('X-Type', 'other')
  headers.set('X-Foreground-Top', String(box.top))
  headers.set('X-Foreground-Left', String(box.left))
  headers.set('X-Foreground-Width', String(box.width))
  headers.set('X-Foreground-Height', String(box.height))
  headers.set('Cache-Control', 'no-store')
  if (wantsJson) {
    headers.delete('Content-Disposition')
    headers.set('Content-Type', 'application/json')
    const data = {
      result_b64: submission.bytes.toString('base64'),
      foreground_top: box.top,
      foreground_left: box.left,
      foreground_width: box.width,
      foreground_height: box.height,
    }
    return new Response(JSON.stringify({ data }), { status: 200, headers })
  }
  headers.set('Content-Length', String(submission.bytes.byteLength))
  return new Response(new Uint8Array(submission.bytes), { status: 200, headers })
}

/** The whole endpoint: key, request, the studio's run, remove.bg's answer. */
export async function removeBgCompatible(request: Request): Promise<Response> {
  const headers = new Headers()
  try {
    // server.ts's gate leaves this path to this one: the same checks and rate limit, in remove.bg's words.
    const authorization = request.headers.get('authorization')
    const sent = presentedApiKey(authorization, request.headers.get(API_KEY_HEADER))
    if (sent.kind === 'none') throw new RemoveBgRefusal(403, 'auth_failed', MISSING_KEY)
    const gate = await apiKeyGate(authorization, request.headers.get(API_KEY_HEADER))
    if (gate) rateHeaders(gate.headers, headers)
    if (gate?.refusal) {
      const { status, body } = gate.refusal
      throw status === 429 ? new RemoveBgRefusal(429, 'rate_limit_exceeded', body.error) : new RemoveBgRefusal(403, 'auth_failed', body.error)
    }
    if (!gate || sent.kind !== 'key') throw new RemoveBgRefusal(403, 'auth_failed', MISSING_KEY)
    const parsed = await readRemoveBgRequest(request)
    const { form, typeLevel } = await toStudioForm(parsed)
    // The studio's own caller resolution sees the key as a Bearer key; the other headers (client
    // address, Idempotency-Key) are kept.
    const studioHeaders = new Headers(request.headers)
    for (const name of ['content-type', 'content-length', 'x-api-key', 'cookie']) studioHeaders.delete(name)
    studioHeaders.set('authorization', `Bearer ${sent.key}`)
    const studioRequest = new Request(request.url, { method: 'POST', headers: studioHeaders })
    const submission = await runToolSubmission(studioRequest, TOOL, form)
    if (!submission.ok) {
      for (const [name, value] of Object.entries(submission.headers)) headers.set(name, value)
      return removeBgErrorResponse(asRemoveBgError(submission.status, submission.error), headers)
    }
    const wantsJson = (request.headers.get('accept') ?? '').toLowerCase().includes('application/json')
    return await successResponse(submission, typeLevel, wantsJson, headers)
  } catch (error) {
    if (error instanceof RemoveBgRefusal) {
      headers.set('X-Credits-Charged', '0')
      return removeBgErrorResponse({ status: error.status, code: error.code, title: error.message }, headers)
    }
    throw error
  }
}
