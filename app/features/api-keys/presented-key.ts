// The API key a request presents: `Authorization: Bearer <key>`, or `X-Api-Key: <key>` (remove.bg's
// header, which its clients send to every endpoint). One rule for the gate, the caller and the
// remove.bg endpoint: a key in either header is used with the same checks and rate limit; the two
// headers naming different credentials are refused, never one of them silently ignored (decision 161).

/** remove.bg's key header, accepted on every /api endpoint. */
export const API_KEY_HEADER = 'x-api-key'

export type PresentedKey = { kind: 'none' } | { kind: 'key'; key: string } | { kind: 'conflict' }

export function presentedApiKey(authorization: string | null | undefined, apiKeyHeader: string | null | undefined): PresentedKey {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
  const header = apiKeyHeader?.trim()
  if (!header) return bearer ? { kind: 'key', key: bearer } : { kind: 'none' }
  // X-Api-Key beside a session Token, another scheme or a different Bearer key: which one was meant?
  if (authorization?.trim() && bearer !== header) return { kind: 'conflict' }
  return { kind: 'key', key: header }
}
