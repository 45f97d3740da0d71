// /login: sign-in and create-account on one screen, plus the forgot-password dialog. Every form is a
// real POST with an `intent`; without JavaScript the mode switch and the reset form are plain links
// (?mode=register, ?forgot=1).
import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { signupBrowser } from '~/features/auth/signup-browser.server'
import { registerUser, requestPasswordReset, resendVerification } from '~/features/auth/accounts.server'
import { PASSWORD_RESET_DONE, RESEND_REQUESTED } from '~/features/auth/messages'
import { limitRegister, limitResend, limitReset, type Limited } from '~/features/auth/rate-limits.server'
import { DEFAULT_AFTER_SIGN_IN, safeRedirectPath } from '~/features/auth/redirect'
import { emailOnlySchema, loginSchema, registerFormSchema } from '~/features/auth/schemas'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { signIn } from '~/features/auth/sign-in.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { Alert } from '~/features/auth/ui/fields'
import {
  ForgotPasswordDialog,
  ForgotPasswordForm,
  linkClass,
  loginHref,
  LoginForm,
  RegisterForm,
  UnableToContinue,
  type LoginActionData as ActionData,
} from '~/features/auth/ui/login-forms'
import { toast } from '~/ui/toast'
import { useHydrated } from '~/ui/use-hydrated'

export const meta: MetaFunction = () => [
  { title: 'Sign in · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const from = safeRedirectPath(url.searchParams.get('from'), DEFAULT_AFTER_SIGN_IN, url.origin)
  // Already signed in (say, a mailed "Sign in" link opened in a signed-in browser): straight on.
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') throw redirect(from)
  return {
    mode: url.searchParams.get('mode') === 'register' ? ('register' as const) : ('login' as const),
    forgot: url.searchParams.has('forgot'),
    from,
    resetDone: url.searchParams.get('reset') === 'done',
  }
}

const HIDDEN = ['password', 'confirm_password']

function limitedReply(intent: ActionData['intent'], submission: { reply: (o: object) => SubmissionResult<string[]> }, limited: Limited) {
  return data({ intent, result: submission.reply({ formErrors: [limited.message], hideFields: HIDDEN }) } as ActionData, {
    status: 429,
    headers: { 'Retry-After': String(limited.retryAfterSeconds) },
  })
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await request.clone().formData()
  const intent = form.get('intent')
  // Where the visitor was going: after sign-in at once, after sign-up through the verification link.
  const from = safeRedirectPath(form.get('from'), DEFAULT_AFTER_SIGN_IN, new URL(request.url).origin)

  if (intent === 'register') {
    const submission = parseWithZod(form, { schema: registerFormSchema })
    if (submission.status !== 'success') {
      return data({ intent, result: submission.reply({ hideFields: HIDDEN }) } as ActionData, { status: 400 })
    }
    const limited = await limitRegister(request, submission.value.email)
    if (limited) return limitedReply(intent, submission, limited)
    // This browser's key goes with the link: opened here, it signs in at once (decision 162).
    const browser = await signupBrowser(request)
    const registered = await registerUser(submission.value, { next: from, browserKey: browser.key })
    return data({ intent, result: submission.reply({ hideFields: HIDDEN }), registered } as ActionData, { headers: { 'Set-Cookie': browser.setCookie } })
  }

  if (intent === 'forgot' || intent === 'resend') {
    const submission = parseWithZod(form, { schema: emailOnlySchema })
    if (submission.status !== 'success') return data({ intent, result: submission.reply() } as ActionData, { status: 400 })
    const limited = await (intent === 'forgot' ? limitReset : limitResend)(request, submission.value.email)
    if (limited) return limitedReply(intent, submission, limited)
    if (intent === 'forgot') {
      await requestPasswordReset(submission.value.email)
      return data({ intent, result: submission.reply(), sent: true } as ActionData)
    }
    const browser = await signupBrowser(request)
    await resendVerification(submission.value.email, { next: from, browserKey: browser.key })
    return data({ intent, result: submission.reply(), sent: true } as ActionData, { headers: { 'Set-Cookie': browser.setCookie } })
  }

  // Sign-in (also the default, so an older form without an intent still works).
  const submission = parseWithZod(form, { schema: loginSchema })
  if (submission.status !== 'success') {
    return data({ intent: 'login', result: submission.reply({ hideFields: HIDDEN }) } as ActionData, { status: 400 })
  }
  const signedIn = await signIn(request, submission.value)
  if (signedIn.kind === 'limited') return limitedReply('login', submission, signedIn.limited)
  if (signedIn.kind === 'refused') {
    const { error } = signedIn
    return data(
      {
        intent: 'login',
        result: submission.reply({ formErrors: [error.message], hideFields: HIDDEN }),
        code: error.code,
        email: error.email,
      } as ActionData,
      { status: 400 },
    )
  }
  return redirect(from, { headers: { 'Set-Cookie': await sessionCookieHeader(signedIn.token) } })
}

export default function LoginPage() {
  const { mode, forgot, from, resetDone } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>() as ActionData | undefined
  const navigation = useNavigation()
  const hydrated = useHydrated()
  const [dialogOpen, setDialogOpen] = useState(false)

  // A sign-in that worked redirects away: say so once the new page is on its way.
  const signingIn = navigation.state === 'loading' && navigation.formData?.get('intent') === 'login' && navigation.location.pathname !== '/login'
  useEffect(() => {
    if (signingIn) toast({ title: 'Signed in', variant: 'success' })
  }, [signingIn])

  const resend = actionData?.intent === 'resend' ? actionData : undefined
  const isRegister = mode === 'register'

  return (
    <div className="mx-auto w-full max-w-md px-4 py-10 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{isRegister ? 'Create your account' : 'Welcome Back'}</h1>
        <p className="mt-1 text-sm text-slate-600">
          {isRegister
            ? 'Get 50 free credits and access to all 5 AI tools. No credit card required.'
            : 'Sign in to use your credits and see your dashboard.'}
        </p>

        <div className="mt-6 space-y-4">
          {resetDone && !actionData ? (
            <Alert variant="success" title="Password updated" testId="reset-done">
              {PASSWORD_RESET_DONE}
            </Alert>
          ) : null}
          {resend?.sent ? (
            <Alert variant="success" title="Verification email sent" testId="resend-sent">
              {RESEND_REQUESTED}
            </Alert>
          ) : null}
          {resend && !resend.sent ? <UnableToContinue errors={resend.result.error?.[''] ?? resend.result.error?.email ?? undefined} /> : null}

          {/* Keyed by mode: switching remounts the form, which clears its messages and errors. */}
          {isRegister ? (
            <RegisterForm key="register" from={from} actionData={actionData} />
          ) : (
            <LoginForm key="login" from={from} actionData={actionData} />
          )}
        </div>

        {!isRegister ? (
          <p className="mt-4 text-center text-sm">
            <Link
              to={loginHref({ forgot: '1' }, from)}
              className={linkClass}
              onClick={(e) => {
                if (!hydrated) return
                e.preventDefault()
                setDialogOpen(true)
              }}
            >
              Forgot your password?
            </Link>
          </p>
        ) : null}

        {forgot && !isRegister ? (
          <section aria-labelledby="forgot-section-title" className="mt-6 rounded-xl border border-slate-200 p-4" id="forgot">
            <h2 id="forgot-section-title" className="text-base font-semibold text-slate-900">
              Reset Password
            </h2>
            <p className="mb-4 mt-1 text-sm text-slate-600">
              Enter your account's email and we'll send you a link to choose a new password.
            </p>
            <ForgotPasswordForm actionData={actionData} from={from} />
          </section>
        ) : null}

        <p className="mt-6 text-center text-sm text-slate-700">
          {isRegister ? 'Already have an account? ' : 'New to Facet Studio? '}
          <Link to={loginHref({ mode: isRegister ? null : 'register' }, from)} className={linkClass} data-testid="mode-toggle">
            {isRegister ? 'Sign in' : 'Create an account'}
          </Link>
        </p>

        <p className="mt-6 text-center text-xs text-slate-600">
          By continuing you agree to our{' '}
          <Link to="/terms" className={linkClass}>
            Terms of Service
          </Link>{' '}
          and{' '}
          <Link to="/privacy" className={linkClass}>
            Privacy Policy
          </Link>
          .
        </p>
      </div>
      {hydrated ? <ForgotPasswordDialog open={dialogOpen} onClose={() => setDialogOpen(false)} from={from} /> : null}
    </div>
  )
}
