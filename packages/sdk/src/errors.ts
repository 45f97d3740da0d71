// Every answer that is not 2xx becomes a FacetError carrying the studio's own words: its body's `error`
// (else `detail`, else the status text), its `code` when it has one, Retry-After and the balance left.
// The studio's JSON error is `{error, detail, remaining?, code?, ...}` (components.schemas.Error).

/** What the studio's error bodies may carry (the Error and TooSlow schemas of the OpenAPI document). */
export interface ErrorBody {
  error?: string
  detail?: string
  code?: string
  remaining?: number | null
  errors?: Record<string, string[]>
  [field: string]: unknown
}

export class FacetError extends Error {
  override readonly name = 'FacetError'
  /** The HTTP status (4xx: the studio refused the request; 5xx: it failed or is busy). */
  readonly status: number
  /** A machine-readable reason when the studio gives one (for example `image_too_slow`). */
  readonly code: string | null
  /** Seconds to wait before trying again (Retry-After), when the studio says so. */
  readonly retryAfter: number | null
  /** The balance after the failure, when the studio says whose balance it was. */
  readonly remaining: number | null
  /** The whole error body (field errors, `largest_size`, `job_url`...). */
  readonly body: ErrorBody

  constructor(status: number, message: string, init: { code?: string | null; retryAfter?: number | null; remaining?: number | null; body?: ErrorBody } = {}) {
    super(message)
    this.status = status
    this.code = init.code ?? null
    this.retryAfter = init.retryAfter ?? null
    this.remaining = init.remaining ?? null
    this.body = init.body ?? {}
  }

  /** 4xx: the request itself was refused (bad input, no credits, no key); sending it again will not help. */
  get refused(): boolean {
    return this.status >= 400 && this.status < 500
  }
}

/** The fallback when an answer says nothing (the spec's catalogue: error, else detail, else status text). */
export const REQUEST_FAILED = 'Request failed'

function numberOrNull(value: string | null): number | null {
  if (value === null || value.trim() === '') return null
  const parsed = Number(value)
  return Number.isFinite(parsed) ? parsed : null
}

/** A FacetError from a non-2xx answer; `body` is its already-parsed JSON, when it was JSON. */
export function errorFromAnswer(response: Response, body: unknown): FacetError {
  const json: ErrorBody = body && typeof body === 'object' ? (body as ErrorBody) : {}
  const message = json.error || json.detail || response.statusText || REQUEST_FAILED
  const remaining = typeof json.remaining === 'number' ? json.remaining : numberOrNull(response.headers.get('X-Credits-Remaining'))
  return new FacetError(response.status, message, {
    code: typeof json.code === 'string' ? json.code : null,
    retryAfter: numberOrNull(response.headers.get('Retry-After')),
    remaining,
    body: json,
  })
}

/** Reads a non-2xx answer's body (JSON when it is JSON) into a FacetError. */
export async function errorFromResponse(response: Response): Promise<FacetError> {
  const text = await response.text().catch(() => '')
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = { error: text.slice(0, 500) }
  }
  return errorFromAnswer(response, body)
}
