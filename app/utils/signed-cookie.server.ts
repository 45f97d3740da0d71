// The studio's own cookies (the session, the visitor, the sign-up browser's key, one-time flashes) under
// one rule: httpOnly (no script reads them); SameSite=Lax (sent when a link from elsewhere is followed, as
// a mailed link needs, never with another site's posts); Secure when PUBLIC_URL is https; signed with the
// session secret, so a client can drop one but never write one. Made once per process and name.
import { createCookie, type Cookie } from '@remix-run/node'
import { config } from '~/config.server'
import { singleton } from './singleton.server'

export function signedCookie(name: string, options: { maxAgeSeconds: number; path?: string }): Cookie {
  return singleton(`signed-cookie:${name}`, () =>
    createCookie(name, {
      httpOnly: true,
      sameSite: 'lax',
      secure: config().secureCookies,
      path: options.path ?? '/',
      maxAge: options.maxAgeSeconds,
      secrets: [config().sessionSecret],
    }),
  )
}
