// Where to send someone after signing in, signing up or verifying: only a path on this site.
// The decision is made on the URL a browser would end up at, not on the raw value: the value is
// resolved against the site's origin, and the normalised path that comes out is checked again,
// because dot segments, encoded slashes and the like can turn an innocent-looking value into
// `//evil.example` (another origin) once normalised.
export const DEFAULT_AFTER_SIGN_IN = '/dashboard'
/** The dashboard's keys and webhooks: where their forms return and where the password-changed mail points. */
export const DEVELOPERS_ANCHOR = '/dashboard#developers'

/** A path also travels in mailed links (the verification mail keeps `from`): no page needs more. */
export const MAX_REDIRECT_PATH_LENGTH = 2048

/** Used when the caller does not name its origin: the check is about staying on one origin, whichever it is. */
const PLACEHOLDER_ORIGIN = 'http://same.site'

// Tabs, newlines and other controls are stripped by URL parsers and can smuggle a `//`; a backslash
// is a slash to browsers. Neither belongs in a path we hand out.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f\\]/

/** Decodes percent-escapes until nothing changes, so `%252f` counts as the `/` it ends up as. */
function fullyDecoded(value: string): string | null {
  let current = value
  for (let round = 0; round < 5; round++) {
    let next: string
    try {
      next = decodeURIComponent(current)
    } catch {
      return null
    }
    if (next === current) return current
    current = next
  }
  return null
}

/** The same-origin path `to` leads to, or null when it leads anywhere else (or nowhere sensible). */
function sameOriginPath(to: string, origin: string): string | null {
  if (!to.startsWith('/') || UNSAFE_CHARACTERS.test(to)) return null
  let url: URL
  try {
    url = new URL(to, origin)
  } catch {
    return null
  }
  if (url.origin !== origin) return null
  const path = url.pathname + url.search + url.hash
  // What the browser will see in Location must itself be a plain same-origin path: `/.//evil`
  // normalises to `//evil`, which a browser reads as another host.
  const decodedPathname = fullyDecoded(url.pathname)
  if (decodedPathname === null || decodedPathname.startsWith('//') || UNSAFE_CHARACTERS.test(decodedPathname)) return null
  let again: URL
  try {
    again = new URL(path, origin)
  } catch {
    return null
  }
  if (again.origin !== origin || again.pathname + again.search + again.hash !== path) return null
  return path
}

export function safeRedirectPath(
  to: FormDataEntryValue | string | null | undefined,
  fallback = DEFAULT_AFTER_SIGN_IN,
  siteOrigin: string = PLACEHOLDER_ORIGIN,
): string {
  if (typeof to !== 'string' || !to || to.length > MAX_REDIRECT_PATH_LENGTH) return fallback
  let origin: string
  try {
    origin = new URL(siteOrigin).origin
  } catch {
    return fallback
  }
  const path = sameOriginPath(to.trim(), origin)
  if (path === null) return fallback
  // Never bounce back to the sign-in page itself.
  const pathname = new URL(path, origin).pathname
  if (pathname === '/login' || pathname === '/logout') return fallback
  return path
}
