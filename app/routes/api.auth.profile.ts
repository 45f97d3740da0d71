// GET /api/auth/profile/ → {id, email, first_name, last_name}; 401 without a live session.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse } from '~/http/errors.server'
import { publicUser } from '~/features/account/views'
import { INVALID_SESSION, NOT_AUTHENTICATED } from '~/features/auth/messages'
import { authenticatedUser, getAuthentication } from '~/features/account/authentication.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const auth = await getAuthentication(request)
  const user = authenticatedUser(auth)
  if (user) return Response.json(publicUser(user), { headers: { 'Cache-Control': 'private, no-store' } })
  return errorResponse(401, auth.kind === 'anonymous' ? NOT_AUTHENTICATED : INVALID_SESSION, {}, { 'WWW-Authenticate': 'Token' })
}
