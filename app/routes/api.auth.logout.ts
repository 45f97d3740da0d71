// POST /api/auth/logout/: revokes the caller's session (token or cookie) and answers 204. Signing out
// twice is not an error.
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { clearSessionCookieHeader, revokeSession } from '~/features/auth/session.server'
import { getAuthentication } from '~/features/account/authentication.server'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') await revokeSession(auth.sessionId)
  const headers = new Headers()
  if (request.headers.get('cookie')) headers.set('Set-Cookie', await clearSessionCookieHeader())
  return new Response(null, { status: 204, headers })
}
