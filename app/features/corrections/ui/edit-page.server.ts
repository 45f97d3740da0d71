// The correction page (/edit/<job>), server side: its guard, and its form read into a CorrectionInput
// for applyCorrections (corrections.server.ts, which owns every rule of a correction). The same form
// comes plain (urlencoded, no JavaScript: part choices, edge fields, face ticks and a box to add) or
// with the brush mask as a file (multipart, JavaScript); both are bounded by the server's small-body
// limit (1 MB, security/body-limit.server.ts), far above a preview-sized greyscale PNG.
import { data, redirect } from '@remix-run/node'
import { z } from 'zod'
import { resolveCaller } from '~/features/account/caller.server'
import { consumeRateLimit, retryAtSentence } from '~/features/security/rate-limit.server'
import { ToolError } from '~/features/jobs/errors.server'
import { PRIVATE_NO_STORE } from '~/http/headers'
import { isUuid } from '~/utils/uuid'
import { CORRECTION_RATE } from '../api.server'
import { applyCorrections, readEditView } from '../corrections.server'
import { EDGE_LIMITS, editPath, type Box, type CorrectionInput, type EditView, type PartDecision } from '../types'
import { FIELD, PART_FIELD_PREFIX, parseFaceValue } from './edit-fields'

/** The page's address after a correction was applied (the page then says so). */
export const APPLIED_PARAM = 'applied'

/**
 * The page's guard: the job's owner only (whoever pays for the browser now: a visitor, a user, or a
 * member working as the team), a result that can still be corrected. Anyone else, and any id that is
 * not one, gets the site's plain 404: whether a job exists is not told to a stranger.
 */
export async function requireEditView(request: Request, jobId: string | undefined): Promise<{ view: EditView; accountId: string }> {
  const resolved = jobId && isUuid(jobId) ? await resolveCaller(request, { create: false, invalidAsGuest: true }) : null
  const accountId = resolved?.kind === 'caller' ? resolved.caller.accountId : null
  const view = accountId && jobId ? await readEditView(jobId, accountId) : null
  if (!view || !accountId) throw new Response('Not found', { status: 404, headers: PRIVATE_NO_STORE })
  return { view, accountId }
}

export const EDGE_MESSAGES = {
  feather: `Feather: a whole number of pixels from ${EDGE_LIMITS.feather.min} to ${EDGE_LIMITS.feather.max}.`,
  grow: `Grow or shrink: a whole number of pixels from ${EDGE_LIMITS.grow.min} to ${EDGE_LIMITS.grow.max}.`,
}
export const PART_MESSAGE = 'Choose keep or remove for each part.'
export const FACE_MESSAGE = 'A face box must be four whole numbers: x, y, width and height.'
export const ADD_BOX_INCOMPLETE = 'To add a box, give its x, y, width and height; or leave all four empty.'
export const MASK_NOT_PNG = 'The brush mask must be a PNG image.'

export function boxOutside(view: Pick<EditView, 'width' | 'height'>): string {
  return `A box must lie inside the image, which is ${view.width} × ${view.height} pixels, and be at least 1 pixel wide and high.`
}

const whole = (message: string, min: number, max: number) => z.coerce.number({ error: message }).int(message).min(min, message).max(max, message)

const edgesSchema = z.object({
  feather: whole(EDGE_MESSAGES.feather, EDGE_LIMITS.feather.min, EDGE_LIMITS.feather.max),
  grow: whole(EDGE_MESSAGES.grow, EDGE_LIMITS.grow.min, EDGE_LIMITS.grow.max),
})

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function inside(box: Box, view: Pick<EditView, 'width' | 'height'>): boolean {
  return box.width >= 1 && box.height >= 1 && box.x >= 0 && box.y >= 0 && box.x + box.width <= view.width && box.y + box.height <= view.height
}

export type FormReading = { ok: true; input: CorrectionInput } | { ok: false; error: string }

/** The posted form as a correction, or the first thing wrong with it in words for the page. */
export async function readCorrectionForm(form: FormData, view: EditView): Promise<FormReading> {
  const text = (name: string) => {
    const value = form.get(name)
    return typeof value === 'string' ? value.trim() : ''
  }
  if (view.kind === 'faces') {
    const faces: Box[] = []
    for (const value of form.getAll(FIELD.face)) {
      const box = typeof value === 'string' ? parseFaceValue(value) : null
      if (!box) return { ok: false, error: FACE_MESSAGE }
      if (!inside(box, view)) return { ok: false, error: boxOutside(view) }
      faces.push(box)
    }
    const added = [FIELD.addX, FIELD.addY, FIELD.addWidth, FIELD.addHeight].map(text)
    if (added.some(Boolean)) {
      if (!added.every(Boolean)) return { ok: false, error: ADD_BOX_INCOMPLETE }
      const box = parseFaceValue(added.join(','))
      if (!box) return { ok: false, error: FACE_MESSAGE }
      if (!inside(box, view)) return { ok: false, error: boxOutside(view) }
      faces.push(box)
    }
    return { ok: true, input: { faces } }
  }

  const input: CorrectionInput = { mask: 'keep' }
  const known = new Set(view.parts.map((part) => part.id))
  const parts: Record<string, PartDecision> = {}
  for (const [name, value] of form) {
    if (!name.startsWith(PART_FIELD_PREFIX)) continue
    const id = name.slice(PART_FIELD_PREFIX.length)
    if (!known.has(id)) continue
    if (value !== 'keep' && value !== 'remove') return { ok: false, error: PART_MESSAGE }
    parts[id] = value
  }
  if (Object.keys(parts).length > 0) input.parts = parts
  if (form.has(FIELD.edges)) {
    const edges = edgesSchema.safeParse({ feather: text(FIELD.feather) || '0', grow: text(FIELD.grow) || '0' })
    if (!edges.success) return { ok: false, error: edges.error.issues[0]!.message }
    input.edges = { ...edges.data, decontaminate: form.has(FIELD.decontaminate) }
  }
  const mask = form.get(FIELD.mask)
  if (mask && typeof mask !== 'string' && mask.size > 0) {
    const bytes = Buffer.from(await mask.arrayBuffer())
    if (!PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) return { ok: false, error: MASK_NOT_PNG }
    input.mask = bytes
  }
  return { ok: true, input }
}

export interface EditRefusal {
  error: string
}

/** The page's action: the correction applied (free), then the page again with the new result. */
export async function applyEditForm(request: Request, view: EditView, accountId: string) {
  // Each correction is a render at full size: the page shares the API's allowance of them.
  const limited = await consumeRateLimit(CORRECTION_RATE, `account:${accountId}`)
  if (!limited.ok) {
    const headers = { ...PRIVATE_NO_STORE, 'Retry-After': String(limited.retryAfterSeconds) }
    return data<EditRefusal>({ error: `Too many corrections in a short time. ${retryAtSentence(limited.retryAfterSeconds)}` }, { status: 429, headers })
  }
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    return data<EditRefusal>({ error: 'The form could not be read. Please send it again.' }, { status: 400, headers: PRIVATE_NO_STORE })
  }
  const reading = await readCorrectionForm(form, view)
  if (!reading.ok) return data<EditRefusal>({ error: reading.error }, { status: 400, headers: PRIVATE_NO_STORE })
  try {
    await applyCorrections(view.jobId, accountId, reading.input)
  } catch (error) {
    if (error instanceof ToolError && error.status < 500) return data<EditRefusal>({ error: error.message }, { status: error.status, headers: PRIVATE_NO_STORE })
    throw error
  }
  return redirect(`${editPath(view.jobId)}?${APPLIED_PARAM}=1`, { status: 303, headers: PRIVATE_NO_STORE })
}
