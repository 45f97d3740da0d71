// POST /api/auth/resend-verification/ {email}: a fresh verification link for an unverified account.
// The answer is the same whether or not there is one.
import type { ActionFunctionArgs } from '@remix-run/node'
import { resendVerification } from '~/features/auth/accounts.server'
import { signupBrowser } from '~/features/auth/signup-browser.server'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { RESEND_REQUESTED } from '~/features/auth/messages'
import { limitedResponse, limitResend } from '~/features/auth/rate-limits.server'
import { emailOnlySchema } from '~/features/auth/schemas'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const parsed = await parseBody(request, emailOnlySchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitResend(request, parsed.data.email)
  if (limited) return limitedResponse(limited)
  const browser = await signupBrowser(request)
  await resendVerification(parsed.data.email, { browserKey: browser.key })
  return Response.json({ detail: RESEND_REQUESTED }, { headers: { 'Set-Cookie': browser.setCookie } })
}
