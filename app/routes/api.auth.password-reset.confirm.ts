// POST /api/auth/password-reset/confirm/ {token, password}: sets the new password with a single-use,
// one-hour token, ends every session of the account and revokes every API key the user made (decision 162).
import type { ActionFunctionArgs } from '@remix-run/node'
import { confirmPasswordReset } from '~/features/auth/accounts.server'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { PASSWORD_RESET_DONE } from '~/features/auth/messages'
import { limitedResponse, limitTokenUse } from '~/features/auth/rate-limits.server'
import { resetConfirmPayloadSchema } from '~/features/auth/schemas'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const parsed = await parseBody(request, resetConfirmPayloadSchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitTokenUse(request)
  if (limited) return limitedResponse(limited)
  const outcome = await confirmPasswordReset(parsed.data.token, parsed.data.password)
  if (!outcome.ok) return errorResponse(400, outcome.error)
  return Response.json({ detail: PASSWORD_RESET_DONE })
}
