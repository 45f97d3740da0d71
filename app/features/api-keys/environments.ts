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
