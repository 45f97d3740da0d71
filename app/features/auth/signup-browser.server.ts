// Which browser asked for a verification link (decision 162). A sign-up (or a resend) leaves a random
// key in the browser's signed, httpOnly `fs_signup` cookie and stores its hash with the link's token.
// The link signs in at once, and carries the browser's guest runs, only where that cookie is: a link
// forwarded to someone else (or opened on another device) first shows whose account it is. The key is
// not a session: alone it signs nobody in, and it is worth nothing without the mailed token.
import { signedCookie } from '~/utils/signed-cookie.server'
import { hashToken, newToken } from './session.server'
import { TOKEN_LIFETIME_HOURS } from './tokens.server'

function signupBrowserCookie() {
  // As long as the newest link it can vouch for.
  return signedCookie('fs_signup', { maxAgeSeconds: TOKEN_LIFETIME_HOURS.verify_email * 3600 })
}

/** The browser's key from a correctly signed cookie, or null. */
export async function readSignupBrowserKey(request: Request): Promise<string | null> {
  const value: unknown = await signupBrowserCookie().parse(request.headers.get('cookie'))
  return typeof value === 'string' && value.length >= 32 ? value : null
}

/** What a token stores of the key: its hash, so the table alone cannot vouch for a browser. */
export function browserHash(key: string | null): string | null {
  return key ? hashToken(key) : null
}

/**
 * The key of the browser asking for a link: its own (kept, so several sign-ups from one browser all
 * recognise it) or a new one, with the Set-Cookie that stores it (renewed for the new link's lifetime).
 */
export async function signupBrowser(request: Request): Promise<{ key: string; setCookie: string }> {
  const key = (await readSignupBrowserKey(request)) ?? newToken()
  return { key, setCookie: await signupBrowserCookie().serialize(key) }
}
