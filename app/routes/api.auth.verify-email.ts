// POST /api/auth/verify-email/ {token} → {token, user, credits:{balance}}: verifies, signs in, grants the welcome bonus once.
// An API call is its own deliberate step, so it is answered whoever calls; but only the browser that
// signed up (its fs_signup key) gets the session cookie and has its guest runs carried (decision 162).
import type { ActionFunctionArgs } from '@remix-run/node'
import { readVisitorId } from '~/features/account/visitor-cookie.server'
import { verifyEmailCarryingGuestRuns } from '~/features/history/carry.server'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { publicUser } from '~/features/account/views'
import { limitedResponse, limitTokenUse } from '~/features/auth/rate-limits.server'
import { tokenSchema } from '~/features/auth/schemas'
import { VERIFY_FAILURE } from '~/features/auth/messages'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { readSignupBrowserKey } from '~/features/auth/signup-browser.server'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const parsed = await parseBody(request, tokenSchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitTokenUse(request)
  if (limited) return limitedResponse(limited)
  const outcome = await verifyEmailCarryingGuestRuns(parsed.data.token, {
    userAgent: request.headers.get('user-agent'),
    browserKey: await readSignupBrowserKey(request),
    visitorId: await readVisitorId(request),
    confirmed: true,
  })
  if (!outcome.ok) return errorResponse(400, 'error' in outcome ? outcome.error : VERIFY_FAILURE)
  const headers: HeadersInit = outcome.sameBrowser ? { 'Set-Cookie': await sessionCookieHeader(outcome.session.token) } : {}
  return Response.json({ token: outcome.session.token, user: publicUser(outcome.user), credits: { balance: outcome.balance } }, { headers })
}
