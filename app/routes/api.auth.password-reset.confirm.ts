// POST /api/auth/password-reset/confirm/ {token, password}: sets the new password with a single-use,
// one-hour token and signs out every other session of the account.
import type { ActionFunctionArgs } from '@remix-run/node'
import { confirmPasswordReset } from '~/features/auth/accounts.server'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { PASSWORD_RESET_DONE } from '~/features/auth/messages'
import { limitedResponse, limitTokenUse } from '~/features/auth/rate-limits.server'
import { resetConfirmPayloadSchema } from '~/features/auth/schemas'
import { getAuthentication } from '~/features/account/authentication.server'

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
  const auth = await getAuthentication(request)
  const outcome = await confirmPasswordReset(parsed.data.token, parsed.data.password, {
    keepSessionId: auth.kind === 'user' ? auth.sessionId : null,
  })
  if (!outcome.ok) return errorResponse(400, outcome.error)
  return Response.json({ detail: PASSWORD_RESET_DONE })
}
