// Sign-in with email and password through remix-auth's form strategy. It only decides who the
// credentials belong to; the session (ours, server-side) is created by the caller.
import { Authenticator } from 'remix-auth'
import { FormStrategy } from 'remix-auth-form'
import { getDb } from '~/db/db.server'
import { singleton } from '~/utils/singleton.server'
import { verifyAgainstDummy, verifyPassword } from './password.server'
import { loginSchema } from './schemas'
import type { SessionUser } from './session.server'

export const INVALID_CREDENTIALS = 'Invalid email or password.'
export const EMAIL_NOT_VERIFIED =
  'Please verify your email before signing in. Check your inbox for the verification link, or send yourself a new one.'

/** Why a sign-in failed, in words fit to show the user. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly code: 'invalid_credentials' | 'email_not_verified' | 'invalid_input',
    readonly email?: string,
  ) {
    super(message)
    this.name = 'SignInError'
  }
}

export async function checkCredentials(form: FormData): Promise<SessionUser> {
  const parsed = loginSchema.safeParse({ email: form.get('email') ?? undefined, password: form.get('password') ?? undefined })
  if (!parsed.success) throw new SignInError(parsed.error.issues[0]?.message ?? INVALID_CREDENTIALS, 'invalid_input')
  const { email, password } = parsed.data
  const user = await getDb()
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'password_hash', 'email_verified_at'])
    .where('email', '=', email)
    .executeTakeFirst()
  const matches = user ? await verifyPassword(password, user.password_hash) : await verifyAgainstDummy(password)
  if (!user || !matches) throw new SignInError(INVALID_CREDENTIALS, 'invalid_credentials')
  // Said only to whoever knows the password, so it reveals nothing to a stranger.
  if (!user.email_verified_at) throw new SignInError(EMAIL_NOT_VERIFIED, 'email_not_verified', user.email)
  return { id: user.id, email: user.email, first_name: user.first_name, last_name: user.last_name }
}

export function authenticator(): Authenticator<SessionUser> {
  return singleton('authenticator', () => {
    const auth = new Authenticator<SessionUser>()
    auth.use(new FormStrategy(({ form }) => checkCredentials(form)), 'form')
    return auth
  })
}

/** Runs the form strategy; a JSON body is turned into a form first, so API and page sign in the same way. */
export async function authenticateCredentials(request: Request, fields?: { email: unknown; password: unknown }): Promise<SessionUser> {
  let formRequest = request
  if (fields) {
    const body = new URLSearchParams()
    if (typeof fields.email === 'string') body.set('email', fields.email)
    if (typeof fields.password === 'string') body.set('password', fields.password)
    formRequest = new Request(request.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
  }
  return authenticator().authenticate('form', formRequest)
}
