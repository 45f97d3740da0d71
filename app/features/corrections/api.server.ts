// The corrections API (decision 157): GET and POST /api/jobs/<id>/corrections/ and the previews at
// /api/jobs/<id>/corrections/preview/<which>. Owner only (404 for anyone else), authenticated as
// every /api route (session or API key; the same-origin check on cookie posts is server.ts's).
import { z } from 'zod'
import { resolveCaller } from '~/features/account/caller.server'
import { consumeRateLimit, retryAtSentence } from '~/features/security/rate-limit.server'
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { ToolError, badRequest } from '~/features/jobs/errors.server'
import { JOB_ID_HEADER } from '~/features/jobs/view'
import { contentDisposition } from '~/http/headers'
import { FORM_OVERHEAD_BYTES, readMultipartForm } from '~/features/tools/upload.server'
import { NO_STORE } from '~/http/headers'
import { runErrorResponse } from '~/http/errors.server'
import {
  applyCorrections,
  FACES_MESSAGE,
  FEATHER_MESSAGE,
  GROW_MESSAGE,
  JOB_NOT_FOUND_MESSAGE,
  readEditPreview,
  readEditViewOrRefusal,
} from './corrections.server'
import type { Box, CorrectionInput, EditView, PartDecision } from './types'

/** A brush mask is a greyscale PNG of at most the result's 40 MP: mostly flat grey, it deflates to far less. */
export const MAX_MASK_BYTES = 16 * 1024 * 1024
/** Room for MAX_FACE_BOXES boxes and a parts object in a text field. */
const FIELD_BYTES = 64 * 1024
export const MASK_TOO_LARGE_MESSAGE = `The mask is larger than ${MAX_MASK_BYTES / 1024 / 1024} MB: send a greyscale PNG (or a smaller one of the same proportions).`
const NOT_MULTIPART_MESSAGE = 'Send multipart/form-data with mask (a file), feather, grow, decontaminate, parts or faces.'
export const PARTS_MESSAGE = 'parts must be a JSON object naming part ids with keep or remove, such as {"2": "keep"}.'
export const DECONTAMINATE_MESSAGE = 'decontaminate must be true or false.'
/** A correction runs no model but renders the whole result again (about a second at 12 MP): an account's pace is bounded. */
export const CORRECTION_RATE = { name: 'corrections', points: 60, durationSeconds: 60 }
export const CORRECTION_FIELDS = ['mask', 'feather', 'grow', 'decontaminate', 'parts', 'faces'] as const

const wholePixels = (message: string) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, message)
    .transform(Number)
const flag = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'].includes(v), DECONTAMINATE_MESSAGE)
  .transform((v) => ['true', '1', 'on', 'yes'].includes(v))
const jsonOf = <T>(schema: z.ZodType<T>, message: string) =>
  z.string().transform((text, context): T => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      context.addIssue({ code: 'custom', message })
      return z.NEVER
    }
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
      context.addIssue({ code: 'custom', message })
      return z.NEVER
    }
    return parsed.data
  })
const partsSchema = jsonOf(z.record(z.string(), z.enum(['keep', 'remove'])), PARTS_MESSAGE)
const facesSchema = jsonOf(
  z.array(z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })),
  FACES_MESSAGE,
)

function field<T>(schema: z.ZodType<T>, value: string | undefined): T | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? 'Invalid field.')
  return parsed.data
}

/** The multipart fields → the correction (every number and list checked against the result later, in the domain). */
export async function readCorrectionForm(request: Request): Promise<CorrectionInput> {
  const form = await readMultipartForm(request, {
    fileFields: ['mask'],
    maxFiles: 1,
    fieldNames: CORRECTION_FIELDS,
    fileLimit: MAX_MASK_BYTES,
    bodyLimit: MAX_MASK_BYTES + FORM_OVERHEAD_BYTES + CORRECTION_FIELDS.length * FIELD_BYTES,
    tooLargeMessage: MASK_TOO_LARGE_MESSAGE,
    notMultipartMessage: NOT_MULTIPART_MESSAGE,
    fieldBytes: FIELD_BYTES,
  })
  const file = form.files.find((f) => f.field === 'mask')
  if (file && file.bytes.byteLength === 0) throw badRequest('The mask file is empty.')
  const feather = field(wholePixels(FEATHER_MESSAGE), form.fields.feather)
  const grow = field(wholePixels(GROW_MESSAGE), form.fields.grow)
  const decontaminate = field(flag, form.fields.decontaminate)
  const edges = feather === undefined && grow === undefined && decontaminate === undefined ? undefined : { feather, grow, decontaminate }
  const input: CorrectionInput = {}
  if (file) input.mask = file.bytes
  else if (form.fields.mask?.trim() === 'keep') input.mask = 'keep'
  if (edges) input.edges = Object.fromEntries(Object.entries(edges).filter(([, v]) => v !== undefined))
  const parts = field(partsSchema, form.fields.parts) as Record<string, PartDecision> | undefined
  if (parts) input.parts = parts
  const faces = field(facesSchema, form.fields.faces) as Box[] | undefined
  if (faces) input.faces = faces
  return input
}

/** The view as the API answers it: snake_case, like the rest of the API. */
export function editViewJson(view: EditView) {
  return {
    job_id: view.jobId,
    kind: view.kind,
    tool: view.tool,
    width: view.width,
    height: view.height,
    filename: view.filename,
    result_url: view.resultUrl,
    photo_preview_url: view.photoPreviewUrl,
    matte_preview_url: view.mattePreviewUrl,
    mask_preview_url: view.maskPreviewUrl,
    preview_width: view.previewWidth,
    preview_height: view.previewHeight,
    parts: view.parts.map((part) => ({
      id: part.id,
      box: part.box,
      area: part.area,
      mean_alpha: part.meanAlpha,
      kept_by_refinement: part.keptByRefinement,
      decision: part.decision,
      thumbnail_url: part.thumbnailUrl,
    })),
    detected_faces: view.detectedFaces,
    faces: view.faces,
    edges: view.edges,
    corrected: view.corrected,
    blur_radius: view.blurRadius,
    expires_at: view.expiresAt,
  }
}

async function callerAccount(request: Request): Promise<string | null> {
  const caller = await resolveCaller(request, { create: false })
  return caller.kind === 'caller' ? caller.caller.accountId : null
}

function refusal(error: unknown): Response {
  if (error instanceof ToolError) return runErrorResponse(error.status, error.message, null, error.headers)
  throw error
}

export async function getCorrections(request: Request, jobId: string): Promise<Response> {
  const accountId = await callerAccount(request)
  if (!accountId) return runErrorResponse(404, JOB_NOT_FOUND_MESSAGE)
  try {
    return Response.json(editViewJson(await readEditViewOrRefusal(jobId, accountId)), { headers: NO_STORE })
  } catch (error) {
    return refusal(error)
  }
}

/** The re-rendered image, as the tool's endpoint answers an image, charged nothing. */
export async function postCorrections(request: Request, jobId: string): Promise<Response> {
  const accountId = await callerAccount(request)
  if (!accountId) return runErrorResponse(404, JOB_NOT_FOUND_MESSAGE)
  const limited = await consumeRateLimit(CORRECTION_RATE, `account:${accountId}`)
  if (!limited.ok) {
    const retry = { 'Retry-After': String(limited.retryAfterSeconds) }
    return runErrorResponse(429, `Too many corrections in a short time. ${retryAtSentence(limited.retryAfterSeconds)}`, null, retry)
  }
  try {
    const input = await readCorrectionForm(request)
    const corrected = await applyCorrections(jobId, accountId, input)
    return new Response(new Uint8Array(corrected.bytes), {
      headers: {
        ...NO_STORE,
        'Content-Type': corrected.contentType,
        'Content-Length': String(corrected.bytes.byteLength),
        'Content-Disposition': contentDisposition(corrected.filename),
        [CREDITS_CHARGED_HEADER]: '0',
        [JOB_ID_HEADER]: jobId,
        'X-Content-Type-Options': 'nosniff',
      },
    })
  } catch (error) {
    return refusal(error)
  }
}

export async function getCorrectionPreview(request: Request, jobId: string, which: string): Promise<Response> {
  const accountId = await callerAccount(request)
  const preview = accountId ? await readEditPreview(jobId, accountId, which) : null
  if (!preview) return runErrorResponse(404, 'No such preview.')
  return new Response(new Uint8Array(preview.bytes), {
    headers: {
      'Content-Type': preview.contentType,
      'Content-Length': String(preview.bytes.byteLength),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
