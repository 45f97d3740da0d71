// Error answers, once each. Every error carries the message as `error` and `detail` (so any client
// finds it); the account endpoints (/api/auth, /api/keys, /api/teams, /api/webhooks, /api/credits) add
// `errors` by field on a 400; the run endpoints (the tools, /api/jobs, /api/batches) add `remaining`,
// the balance after the refusal (null where the call did not say whose balance it was). The /api
// docs' Errors section says the same.
// The remove.bg compatible endpoint speaks remove.bg's own shape (features/removebg/adapter.server.ts).
import type { $ZodError } from 'zod/v4/core'
import { NO_STORE } from './headers'

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

export function methodNotAllowedMessage(allowed: string): string {
  return `Method not allowed. Use ${allowed}.`
}

/** 405 naming the methods the endpoint takes (the Allow header too). */
export function methodNotAllowed(allowed: string): Response {
  return errorResponse(405, methodNotAllowedMessage(allowed), {}, { Allow: allowed })
}

/** A run endpoint's refusal as a body: {error, detail, remaining}. */
export function runErrorBody(error: string, remaining: number | null) {
  return { error, detail: error, remaining }
}

/** A run endpoint's refusal: {error, detail, remaining} and any `extra` fields, never cached. */
export function runErrorResponse(
  status: number,
  error: string,
  remaining: number | null = null,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response {
  return Response.json({ ...runErrorBody(error, remaining), ...extra }, { status, headers: { ...NO_STORE, ...headers } })
}

/** The tool endpoints take POST only (the run shape, as their other refusals). */
export function runMethodNotAllowed(): Response {
  return Response.json(runErrorBody('Use POST with a multipart/form-data body.', null), { status: 405, headers: { Allow: 'POST' } })
}
