// DELETE /api/keys/<id>/ → 204: the key stops working at once. Another user's key, an unknown id
// or a key revoked already answer 404 alike.
import type { ActionFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { requireApiUser } from '~/features/account/guards.server'
import { revokeKeyFor } from '~/features/account/keys.server'

export function loader() {
  return methodNotAllowed('DELETE')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed('DELETE')
  const caller = await requireApiUser(request)
  const outcome = await revokeKeyFor(caller.auth, caller.user, params.id ?? '')
  if (!outcome.ok) return errorResponse(outcome.status, outcome.message)
  return new Response(null, { status: 204 })
}
