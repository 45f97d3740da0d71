// One error type for everything a tool run can refuse or fail with. The status is the HTTP answer;
// `outcome` is what tool_runs records ('rejected' for bad input, 'failed' when the run broke).
export type RunOutcome = 'success' | 'failed' | 'no_face' | 'rejected'

/**
 * server.ts (run by tsx) and the Vite-built bundle each hold a copy of this module, and a run can
 * cross them: the inline path of the bundle's routes ends through the tool registry the other copy
 * handed in (utils/singleton.server.ts). So a ToolError is known by a brand both copies share, not
 * by which copy's class made it; otherwise a refusal thrown by one copy (a 402 at the outcome) was a
 * 500 to the other's `instanceof`. Subclasses keep the ordinary check.
 */
const TOOL_ERROR_BRAND = Symbol.for('facet-studio.ToolError')

export class ToolError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== ToolError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && (value as { [TOOL_ERROR_BRAND]?: unknown })[TOOL_ERROR_BRAND] === true
  }

  readonly [TOOL_ERROR_BRAND] = true

  constructor(
    readonly status: number,
    message: string,
    readonly options: { outcome?: RunOutcome; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'ToolError'
  }

  get outcome(): RunOutcome {
    return this.options.outcome ?? (this.status >= 500 ? 'failed' : 'rejected')
  }

  get headers(): Record<string, string> {
    return this.options.headers ?? {}
  }
}

/** The queue is deeper than TOOL_QUEUE_LIMIT: refused before anything is charged. */
export class QueueFullError extends ToolError {
  constructor(readonly retryAfterSeconds: number) {
    super(503, 'The studio is busy right now. Please try again in a few seconds.', {
      outcome: 'rejected',
      headers: { 'Retry-After': String(retryAfterSeconds) },
    })
  }
}

/**
 * The account has its whole share of the waiting runs (or batch items): refused before anything is
 * charged, while other accounts are still admitted. 429, not 503: the studio is serving, it is
 * this client that must slow down (and a 503 tells load balancers the server is unwell).
 */
export class AccountQueueFullError extends ToolError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(429, message, { outcome: 'rejected', headers: { 'Retry-After': String(retryAfterSeconds) } })
  }
}

/** A run past TOOL_TIMEOUT_MS: stopped, recorded as failed and refunded. */
export class RunTimeoutError extends ToolError {
  constructor(timeoutMs: number) {
    super(503, `The run took longer than ${Math.round(timeoutMs / 1000)} seconds and was stopped. Try a smaller image.`, {
      outcome: 'failed',
      headers: { 'Retry-After': '30' },
    })
  }
}

/**
 * An image that cannot finish within the time limit on this server (run-time.ts): refused after its
 * header is read, before anything is charged, with the largest size that would finish.
 */
export class TooSlowError extends ToolError {
  constructor(
    message: string,
    readonly timing: { estimatedMs: number; limitMs: number; largest: { width: number; height: number } | null },
  ) {
    // No size fits: the server is too slow now (busy), so the answer says when to try again.
    super(timing.largest ? 422 : 503, message, { outcome: 'rejected', headers: timing.largest ? {} : { 'Retry-After': '60' } })
  }
}

export const badRequest = (message: string) => new ToolError(400, message)
export const unsupportedType = (message: string) => new ToolError(415, message)
export const tooLarge = (message: string) => new ToolError(413, message)
