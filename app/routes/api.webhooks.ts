// GET /api/webhooks/ → {results: [endpoint with its recent deliveries]}; POST /api/webhooks/
// {url, events} → 201 {id, url, events, secret}: the only time the signing secret is shown.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { createWebhookSchema } from '~/features/webhooks/schemas'
import { createWebhookFor, listWebhooksFor } from '~/features/webhooks/service.server'
import { requireManagedAccount } from '~/features/account/guards.server'
import { NO_STORE } from '~/http/headers'

export async function loader({ request }: LoaderFunctionArgs) {
  const owner = await requireManagedAccount(request)
  return Response.json({ results: await listWebhooksFor(owner.accountId) }, { headers: NO_STORE })
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('GET, POST')
  const owner = await requireManagedAccount(request)
  const parsed = await parseBody(request, createWebhookSchema)
  if ('response' in parsed) return parsed.response
  const outcome = await createWebhookFor(owner.accountId, parsed.data, owner.team)
  if (!outcome.ok) return errorResponse(outcome.status, outcome.message, {}, NO_STORE)
  const { id, url, events, secret, created_at } = outcome.endpoint
  return Response.json({ id, url, events, secret, created_at: created_at.toISOString() }, { status: 201, headers: NO_STORE })
}
