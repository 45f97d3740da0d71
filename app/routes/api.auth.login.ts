// POST /api/auth/login/ {email, password} → {token, user, credits:{balance}}. API clients keep the token
// and send it as `Authorization: Token {token}`.
import type { ActionFunctionArgs } from '@remix-run/node'
import { BadRequest, readBody } from '~/http/body.server'
import { errorResponse, methodNotAllowed, validationError } from '~/http/errors.server'
import { publicUser } from '~/features/account/views'
import { authenticateCredentials, SignInError } from '~/features/auth/authenticator.server'
import { forgiveSignIn, limitedResponse, limitSignIn } from '~/features/auth/rate-limits.server'
import { loginSchema } from '~/features/auth/schemas'
import { createSession } from '~/features/auth/session.server'
import { ensureUserAccount, getBalance } from '~/features/credits/ledger.server'

/** Only POST is meaningful here; a GET gets a clear 405 instead of Remix's generic error. */
export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  let body: Record<string, unknown>
  try {
    body = await readBody(request)
  } catch (error) {
    if (error instanceof BadRequest) return errorResponse(400, error.message)
    throw error
  }
  const parsed = loginSchema.safeParse(body)
  if (!parsed.success) return validationError(parsed.error)
  const limited = await limitSignIn(request, parsed.data.email)
  if (limited) return limitedResponse(limited)
  try {
    const user = await authenticateCredentials(request, parsed.data)
    await forgiveSignIn(request, parsed.data.email)
    const { token } = await createSession(user.id, { userAgent: request.headers.get('user-agent') })
    const balance = await getBalance(await ensureUserAccount(user.id))
    return Response.json({ token, user: publicUser(user), credits: { balance } })
  } catch (error) {
    if (!(error instanceof SignInError)) throw error
    if (error.code === 'email_not_verified') {
      return errorResponse(400, error.message, {
        code: error.code,
        resend: { method: 'POST', path: '/api/auth/resend-verification/', body: { email: error.email } },
      })
    }
    return errorResponse(400, error.message, { code: error.code })
  }
}
