// GET /api/auth/profile/ → {id, email, first_name, last_name}; 401 without a live session.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse, publicUser } from '~/features/auth/api.server'
import { INVALID_SESSION, NOT_AUTHENTICATED } from '~/features/auth/messages'
import { authenticatedUser, getAuthentication } from '~/features/auth/session.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const auth = await getAuthentication(request)
  const user = authenticatedUser(auth)
  if (user) return Response.json(publicUser(user), { headers: { 'Cache-Control': 'private, no-store' } })
  return errorResponse(401, auth.kind === 'anonymous' ? NOT_AUTHENTICATED : INVALID_SESSION, {}, { 'WWW-Authenticate': 'Token' })
}
