// CSRF defence for cookie-authenticated writes: a browser always says where a POST comes from
// (Origin, or at least Sec-Fetch-Site), so a write that carries cookies from another site is refused.
// Token-authenticated API clients send no cookies and are not affected. See docs/decisions/004-csrf.md.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface OriginCheckInput {
  method: string
  origin: string | null | undefined
  secFetchSite: string | null | undefined
  hasCookies: boolean
  /** The origins this server answers as, e.g. PUBLIC_URL's and the request's own Host. */
  allowedOrigins: string[]
}

export function isCrossSiteWrite(input: OriginCheckInput): boolean {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return false
  if (!input.hasCookies) return false
  if (input.origin && input.origin !== 'null') return !input.allowedOrigins.includes(input.origin)
  if (input.origin === 'null') return true
  return input.secFetchSite === 'cross-site'
}
