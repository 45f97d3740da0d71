// What a test key changes in a run, as facts the run pipeline reads (it applies them; the key side
// only defines them). Client-safe so the documentation page shows the same figures.
export const TEST_RESULT_MAX_PIXELS = 250_000
/** Every answer to a key caller names the key's environment; `test` means nothing was charged. */
export const ENVIRONMENT_HEADER = 'X-Facet-Environment'
export const TEST_MODE_VALUE = 'test'
/** Credits a tool answer took from the balance (0 for test keys, for replays and for refunded runs). */
export const CREDITS_CHARGED_HEADER = 'X-Credits-Charged'

export interface KeyedCaller {
  apiKey: { id: string; environment: 'live' | 'test' } | null
}

export function isTestKey(caller: KeyedCaller): boolean {
  return caller.apiKey?.environment === 'test'
}

/**
 * The headers a tool answer adds for its caller: the credits the run took, and for a key caller
 * its environment (the RateLimit-* headers come from the /api gate on every answer).
 */
export function runAnswerHeaders(caller: KeyedCaller, creditsCharged: number): Record<string, string> {
  const headers: Record<string, string> = { [CREDITS_CHARGED_HEADER]: String(creditsCharged) }
  if (caller.apiKey) headers[ENVIRONMENT_HEADER] = caller.apiKey.environment
  return headers
}
