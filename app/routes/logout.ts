// /logout: the header's Logout form posts here. Revokes the session, clears the cookie, goes home.
import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { clearSessionCookieHeader, revokeSession } from '~/features/auth/session.server'
import { getAuthentication } from '~/features/account/authentication.server'

export async function action({ request }: ActionFunctionArgs) {
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') await revokeSession(auth.sessionId)
  return redirect('/', { headers: { 'Set-Cookie': await clearSessionCookieHeader() } })
}

/** A GET must never sign anyone out (link prefetchers, crawlers): it just goes home. */
export function loader() {
  return redirect('/')
}
