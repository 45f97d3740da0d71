// POST /api/auth/register/ → 201 {detail, email, expires_in_hours}. Never signs in, never reveals an existing account.
import type { ActionFunctionArgs } from '@remix-run/node'
import { registerUser } from '~/features/auth/accounts.server'
import { signupBrowser } from '~/features/auth/signup-browser.server'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { registeredDetail } from '~/features/auth/messages'
import { limitedResponse, limitRegister } from '~/features/auth/rate-limits.server'
import { registerPayloadSchema } from '~/features/auth/schemas'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const parsed = await parseBody(request, registerPayloadSchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitRegister(request, parsed.data.email)
  if (limited) return limitedResponse(limited)
  // A browser calling this keeps a key that its link recognises (decision 162); a script may ignore it.
  const browser = await signupBrowser(request)
  const { email, expiresInHours } = await registerUser(parsed.data, { browserKey: browser.key })
  return Response.json(
    { detail: registeredDetail(email, expiresInHours), email, expires_in_hours: expiresInHours },
    { status: 201, headers: { 'Set-Cookie': browser.setCookie } },
  )
}
