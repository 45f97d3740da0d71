// Pages that need a signed-in user. A signed-out visitor is sent to /login with where they were
// going as `from`; the redirect replaces the history entry, so Back does not loop through it.
import { replace } from '@remix-run/node'
import { getAuthentication, type SessionUser } from './session.server'

export function loginPathFor(request: Request): string {
  const url = new URL(request.url)
  const from = url.pathname + url.search
  return `/login?${new URLSearchParams({ from })}`
}

export async function requireUser(request: Request): Promise<{ user: SessionUser; sessionId: string }> {
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') return { user: auth.user, sessionId: auth.sessionId }
  throw replace(loginPathFor(request))
}
