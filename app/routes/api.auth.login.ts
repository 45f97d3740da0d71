// POST /api/auth/login/ {email, password} → {token, user, credits:{balance}}. API clients keep the token
// and send it as `Authorization: Token {token}`.
import type { ActionFunctionArgs } from '@remix-run/node'
import { BadRequest, readBody } from '~/http/body.server'
import { errorResponse, methodNotAllowed, validationError } from '~/http/errors.server'
import { publicUser } from '~/features/account/views'
import { limitedResponse } from '~/features/auth/rate-limits.server'
import { loginSchema } from '~/features/auth/schemas'
import { signIn } from '~/features/auth/sign-in.server'
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
  const signedIn = await signIn(request, parsed.data)
  if (signedIn.kind === 'limited') return limitedResponse(signedIn.limited)
  if (signedIn.kind === 'refused') {
    const { error } = signedIn
    if (error.code === 'email_not_verified') {
      return errorResponse(400, error.message, {
        code: error.code,
        resend: { method: 'POST', path: '/api/auth/resend-verification/', body: { email: error.email } },
      })
    }
    return errorResponse(400, error.message, { code: error.code })
  }
  const balance = await getBalance(await ensureUserAccount(signedIn.user.id))
  return Response.json({ token: signedIn.token, user: publicUser(signedIn.user), credits: { balance } })
}
