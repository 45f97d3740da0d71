// Error answers, once each. The API has two shapes and keeps both (clients rely on them):
// - the account endpoints (/api/auth, /api/keys, /api/teams, /api/webhooks, /api/credits) answer
//   {error, detail}: the message in both, so any client finds it;
// - the run endpoints (the tools, /api/jobs, /api/batches) answer {error, remaining}: remaining is the
//   balance after the refusal, when known.
// The remove.bg compatible endpoint speaks remove.bg's own shape (features/removebg/adapter.server.ts).
import type { z } from 'zod'
import { NO_STORE } from './headers'

export function errorResponse(status: number, message: string, extra: Record<string, unknown> = {}, headers?: HeadersInit): Response {
  return Response.json({ error: message, detail: message, ...extra }, { status, headers })
}

/** 400 with the first problem as the message and every problem by field. */
export function validationError(error: z.ZodError): Response {
  const errors: Record<string, string[]> = {}
  for (const issue of error.issues) {
    const field = issue.path.join('.') || 'non_field_errors'
    ;(errors[field] ??= []).push(issue.message)
  }
  return errorResponse(400, error.issues[0]?.message ?? 'Invalid request.', { errors })
}

/** 405 naming the methods the endpoint takes (the Allow header too). */
export function methodNotAllowed(allowed: string): Response {
  return errorResponse(405, `Method not allowed. Use ${allowed}.`, {}, { Allow: allowed })
}

/** A run endpoint's refusal: {error, remaining}, never cached. */
export function runErrorResponse(status: number, error: string, remaining: number | null = null, headers: Record<string, string> = {}): Response {
  return Response.json({ error, remaining }, { status, headers: { ...NO_STORE, ...headers } })
}

/** The tool endpoints take POST only (the run shape, as their other refusals). */
export function runMethodNotAllowed(): Response {
  return Response.json({ error: 'Use POST with a multipart/form-data body.', remaining: null }, { status: 405, headers: { Allow: 'POST' } })
}
