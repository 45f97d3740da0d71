// POST /api/auth/password-reset/ {email}: mails a one-hour reset link if the account exists. The answer
// is the same either way.
import type { ActionFunctionArgs } from '@remix-run/node'
import { requestPasswordReset } from '~/features/auth/accounts.server'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { RESET_REQUESTED } from '~/features/auth/messages'
import { limitedResponse, limitReset } from '~/features/auth/rate-limits.server'
import { emailOnlySchema } from '~/features/auth/schemas'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const parsed = await parseBody(request, emailOnlySchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitReset(request, parsed.data.email)
  if (limited) return limitedResponse(limited)
  await requestPasswordReset(parsed.data.email)
  return Response.json({ detail: RESET_REQUESTED })
}
