// The sign-in sequence, written once for the login page and POST /api/auth/login/: the attempt
// limits (per address and per email), the credentials checked, the email's limit forgiven when they
// match, and a new server-side session. Each caller answers the outcome in its own form: the page a
// redirect with the session cookie, the API the token in JSON.
import { authenticateCredentials, SignInError } from './authenticator.server'
import { forgiveSignIn, limitSignIn, type Limited } from './rate-limits.server'
import { createSession, type SessionUser } from './session.server'

export type SignInOutcome =
  | { kind: 'signed-in'; user: SessionUser; token: string }
  /** Too many attempts from this address or for this email: answer 429 with Retry-After. */
  | { kind: 'limited'; limited: Limited }
  /** Wrong credentials, or an email not verified yet: answer 400 with the error's words and code. */
  | { kind: 'refused'; error: SignInError }

export async function signIn(request: Request, credentials: { email: string; password: string }): Promise<SignInOutcome> {
  const limited = await limitSignIn(request, credentials.email)
  if (limited) return { kind: 'limited', limited }
  let user: SessionUser
  try {
    user = await authenticateCredentials(request, credentials)
  } catch (error) {
    if (error instanceof SignInError) return { kind: 'refused', error }
    throw error
  }
  await forgiveSignIn(request, credentials.email)
  const { token } = await createSession(user.id, { userAgent: request.headers.get('user-agent') })
  return { kind: 'signed-in', user, token }
}
