// Pages that need a signed-in user. A signed-out visitor is sent to /login with where they were
// going as `from`. The protected page never enters the history (the spec's "replacing history"):
// a document request is answered with a 302 before anything renders, and a client navigation waits
// for its loaders, so the redirect becomes the one new entry. Remix's replace() would be wrong here:
// it would overwrite the page the visitor came from, and Back would skip it.
import { redirect } from '@remix-run/node'
import { getAuthentication, type SessionUser } from './session.server'

export function loginPathFor(request: Request): string {
  const url = new URL(request.url)
  const from = url.pathname + url.search
  return `/login?${new URLSearchParams({ from })}`
}

export async function requireUser(request: Request): Promise<{ user: SessionUser; sessionId: string }> {
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') return { user: auth.user, sessionId: auth.sessionId }
  throw redirect(loginPathFor(request))
}
