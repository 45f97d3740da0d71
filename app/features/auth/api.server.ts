// Shared plumbing of the /api/auth endpoints: reading a JSON or form body, and error answers in the
// contract's shape ({error, detail}; the message is in both so any client finds it).
import { safeParse, type $ZodError, type $ZodType, type output } from 'zod/v4/core'
import type { SessionUser } from './session.server'

export class BadRequest extends Error {}

/** The body as a plain object: JSON for API clients, or a urlencoded/multipart form. */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? ''
  if (type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')) {
    const form = await request.formData()
    const out: Record<string, unknown> = {}
    for (const [key, value] of form) if (typeof value === 'string') out[key] = value
    return out
  }
  const text = await request.text()
  if (!text.trim()) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new BadRequest('The request body must be JSON (or a form).')
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('The request body must be a JSON object.')
  return parsed as Record<string, unknown>
}

export function errorResponse(status: number, message: string, extra: Record<string, unknown> = {}, headers?: HeadersInit): Response {
  return Response.json({ error: message, detail: message, ...extra }, { status, headers })
}

/** 400 with the first problem as the message and every problem by field. */
export function validationError(error: $ZodError): Response {
  const errors: Record<string, string[]> = {}
  for (const issue of error.issues) {
    const field = issue.path.join('.') || 'non_field_errors'
    ;(errors[field] ??= []).push(issue.message)
  }
  return errorResponse(400, error.issues[0]?.message ?? 'Invalid request.', { errors })
}

export function methodNotAllowed(allowed: string): Response {
  return errorResponse(405, `Method not allowed. Use ${allowed}.`, {}, { Allow: allowed })
}

export function publicUser(user: SessionUser) {
  return { id: user.id, email: user.email, first_name: user.first_name, last_name: user.last_name }
}

/** Parses the body with a schema (zod or zod/mini), answering 400 for anything unreadable or invalid. */
export async function parseBody<S extends $ZodType>(request: Request, schema: S): Promise<{ data: output<S> } | { response: Response }> {
  let body: Record<string, unknown>
  try {
    body = await readBody(request)
  } catch (error) {
    if (error instanceof BadRequest) return { response: errorResponse(400, error.message) }
    throw error
  }
  const parsed = safeParse(schema, body)
  if (!parsed.success) return { response: validationError(parsed.error) }
  return { data: parsed.data }
}
