// POST /api/webhooks/deliveries/<id>/redeliver/ → 202: one more attempt of a delivery, now.
import type { ActionFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { DELIVERY_NOT_FOUND, redeliverFor } from '~/features/webhooks/service.server'
import { requireManagedAccount } from '~/features/account/guards.server'

export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const owner = await requireManagedAccount(request)
  if (!(await redeliverFor(owner.accountId, params.id ?? ''))) return errorResponse(404, DELIVERY_NOT_FOUND)
  return Response.json({ id: params.id, status: 'pending' }, { status: 202 })
}
