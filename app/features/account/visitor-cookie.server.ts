// The visitor cookie: one of the studio's signed cookies (utils/signed-cookie.server.ts), holding a
// visitors row's id (decision 080). It is read and written here, in the room where a request becomes a caller; below it the
// credits room knows a visitor by its id and the address it comes from, never by a Request.
import { signedCookie } from '~/utils/signed-cookie.server'

export const VISITOR_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function visitorCookie() {
  return signedCookie('fs_visitor', { maxAgeSeconds: VISITOR_COOKIE_MAX_AGE_SECONDS })
}

/** The visitor id from a correctly signed cookie, or null (no cookie, tampered, malformed). */
export async function readVisitorId(request: Request): Promise<string | null> {
  const value: unknown = await visitorCookie().parse(request.headers.get('cookie'))
  return typeof value === 'string' && UUID.test(value) ? value : null
}

/** The Set-Cookie header that makes this browser the given visitor. */
export function visitorCookieHeader(visitorId: string): Promise<string> {
  return visitorCookie().serialize(visitorId)
}
