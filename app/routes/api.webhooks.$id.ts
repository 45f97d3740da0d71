// DELETE /api/webhooks/<id>/ → 204 (its deliveries go with it); another account's or an unknown id: 404.
import type { ActionFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { deleteWebhookFor, WEBHOOK_NOT_FOUND } from '~/features/webhooks/service.server'
import { requireManagedAccount } from '~/features/account/guards.server'

export function loader() {
  return methodNotAllowed('DELETE')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed('DELETE')
  const owner = await requireManagedAccount(request)
  if (!(await deleteWebhookFor(owner.accountId, params.id ?? '', owner.team))) return errorResponse(404, WEBHOOK_NOT_FOUND)
  return new Response(null, { status: 204 })
}
