// Where to send someone after signing in. Only a path on this site: never `//host` or `/\host`,
// which browsers treat as another origin.
export const DEFAULT_AFTER_SIGN_IN = '/dashboard'

export function safeRedirectPath(to: FormDataEntryValue | string | null | undefined, fallback = DEFAULT_AFTER_SIGN_IN): string {
  if (typeof to !== 'string' || !to) return fallback
  const value = to.trim()
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  // Control characters (tabs, newlines) are stripped by URL parsers and could smuggle a `//`.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  try {
    const url = new URL(value, 'http://same.site')
    if (url.origin !== 'http://same.site') return fallback
    // Never bounce back to the sign-in page itself.
    if (url.pathname === '/login' || url.pathname === '/logout') return fallback
    return url.pathname + url.search + url.hash
  } catch {
    return fallback
  }
}
