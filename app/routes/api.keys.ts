// GET /api/keys/ → {results: [key without its secret]}; POST /api/keys/ {name, environment} →
// 201 {id, name, environment, prefix, key}: the only time the key is shown.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { createApiKeySchema } from '~/features/api-keys/schemas'
import { createKeyFor, listKeysFor } from '~/features/account/keys.server'
import { requireApiUser } from '~/features/account/guards.server'
import { NO_STORE } from '~/http/headers'

export async function loader({ request }: LoaderFunctionArgs) {
  const caller = await requireApiUser(request)
  return Response.json({ results: await listKeysFor(caller.user) }, { headers: NO_STORE })
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('GET, POST')
  const caller = await requireApiUser(request)
  const parsed = await parseBody(request, createApiKeySchema)
  if ('response' in parsed) return parsed.response
  const outcome = await createKeyFor(caller.auth, caller.user, parsed.data)
  if (!outcome.ok) return errorResponse(outcome.status, outcome.message, {}, NO_STORE)
  return Response.json(outcome.key, { status: 201, headers: NO_STORE })
}
