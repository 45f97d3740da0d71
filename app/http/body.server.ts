// Reading a request body, once: JSON for API clients, or a urlencoded/multipart form (fields only;
// file uploads are read by the tools' own multipart reader, features/tools/upload.server.ts).
import { safeParse, type $ZodType, type output } from 'zod/v4/core'
import { errorResponse, validationError } from './errors.server'

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
