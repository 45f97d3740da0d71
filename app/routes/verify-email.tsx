// /verify-email?token=...[&from=/path]: confirms the address once. A GET never spends the token (mail
// scanners fetch links); with JavaScript the page posts it at once, without it a single button does.
// `from` is where a sign-up started (a team invite, decision 076): once verified and signed in, the
// browser goes there instead of this page's welcome, after safeRedirectPath, so a link whose `from`
// was edited can lead only to a path on this site. A link opened in a browser other than the one that
// signed up is not spent at once: the page names the account and asks "Continue as <email>" (decision
// 162), and continuing carries nothing of this browser's into that account.
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useActionData, useFetcher, useLoaderData } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { config } from '~/config.server'
import { readVisitorId } from '~/features/account/visitor-cookie.server'
import { verifyEmailCarryingGuestRuns } from '~/features/history/carry.server'
import { continueAsText, VERIFY_FAILURE, VERIFY_SUCCESS, VERIFY_TOKEN_MISSING } from '~/features/auth/messages'
import { limitTokenUse } from '~/features/auth/rate-limits.server'
import { DEFAULT_AFTER_SIGN_IN, safeRedirectPath } from '~/features/auth/redirect'
import { tokenSchema } from '~/features/auth/schemas'
import { getAuthentication } from '~/features/account/authentication.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { readSignupBrowserKey } from '~/features/auth/signup-browser.server'
import { WelcomeDialog } from '~/features/auth/ui/welcome-dialog'
import { buttonClass } from '~/ui/button'
import { toast } from '~/ui/toast'

export const meta: MetaFunction = () => [
  { title: 'Verify your email · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const token = url.searchParams.get('token')?.trim() || null
  // After a successful POST the browser lands here again, now carrying its session cookie, so the
  // header and this page both show the signed-in state (with or without JavaScript).
  const verified = url.searchParams.get('verified') === '1' && (await getAuthentication(request)).kind === 'user'
  return {
    token: verified ? null : token,
    from: afterVerification(url.searchParams.get('from'), request),
    verified,
    welcome: verified && url.searchParams.get('welcome') === '1',
    bonus: config().SIGNUP_BONUS,
  }
}

/** Where a sign-up that started elsewhere continues (null: this page's own welcome). */
function afterVerification(from: FormDataEntryValue | null, request: Request): string | null {
  const next = safeRedirectPath(from, DEFAULT_AFTER_SIGN_IN, new URL(request.url).origin)
  return next === DEFAULT_AFTER_SIGN_IN ? null : next
}

type VerifyResult = { ok: false; error: string } | { ok: false; confirmAs: string }

/** The form field of the "Continue as" button: the caller has seen whose account this is. */
const CONTINUE_FIELD = 'continue'

export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData()
  const parsed = tokenSchema.safeParse({ token: form.get('token') ?? undefined })
  if (!parsed.success) return data<VerifyResult>({ ok: false, error: VERIFY_TOKEN_MISSING }, { status: 400 })
  const limited = await limitTokenUse(request)
  if (limited) {
    return data<VerifyResult>({ ok: false, error: limited.message }, { status: 429, headers: { 'Retry-After': String(limited.retryAfterSeconds) } })
  }
  const outcome = await verifyEmailCarryingGuestRuns(parsed.data.token, {
    userAgent: request.headers.get('user-agent'),
    browserKey: await readSignupBrowserKey(request),
    visitorId: await readVisitorId(request),
    confirmed: form.get(CONTINUE_FIELD) === '1',
  })
  if (!outcome.ok && 'confirmAs' in outcome) return data<VerifyResult>({ ok: false, confirmAs: outcome.confirmAs })
  if (!outcome.ok) return data<VerifyResult>({ ok: false, error: outcome.error }, { status: 400 })
  const next = afterVerification(form.get('from'), request) ?? (outcome.bonusGranted ? '/verify-email?verified=1&welcome=1' : '/verify-email?verified=1')
  return redirect(next, { headers: { 'Set-Cookie': await sessionCookieHeader(outcome.session.token) } })
}

function StatusIcon({ state }: { state: 'loading' | 'success' | 'error' | 'idle' }) {
  const ring = { loading: 'bg-indigo-50 text-indigo-600', success: 'bg-emerald-50 text-emerald-600', error: 'bg-red-50 text-red-600', idle: 'bg-indigo-50 text-indigo-600' }[state]
  return (
    <div className={`mx-auto flex h-14 w-14 items-center justify-center rounded-full ${ring}`} aria-hidden="true">
      <svg viewBox="0 0 24 24" className={`h-7 w-7 ${state === 'loading' ? 'animate-spin' : ''}`} fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
        {state === 'success' ? <path d="m5 12 5 5 9-10" /> : state === 'error' ? <path d="M6 6l12 12M18 6 6 18" /> : state === 'loading' ? <path d="M12 3a9 9 0 1 0 9 9" /> : <path d="M4 6h16v12H4zM4 7l8 6 8-6" />}
      </svg>
    </div>
  )
}

export default function VerifyEmailPage() {
  const { token, from, verified, welcome, bonus } = useLoaderData<typeof loader>()
  const fetcher = useFetcher<typeof action>({ key: 'verify-email' })
  const started = useRef(false)

  // Once, at once: the ref survives React's development double effects, so the token is posted once.
  useEffect(() => {
    if (!token || started.current) return
    started.current = true
    fetcher.submit(from ? { token, from } : { token }, { method: 'post' })
  }, [token, from, fetcher])

  // Without JavaScript the form posts as a page navigation: the answer arrives as action data.
  const actionData = useActionData<typeof action>()
  const result = (fetcher.data ?? actionData) as VerifyResult | undefined
  const formAction = token ? `/verify-email?${new URLSearchParams(from ? { token, from } : { token })}` : '/verify-email'
  const fromField = from ? <input type="hidden" name="from" value={from} /> : null
  const confirmAs = result && 'confirmAs' in result ? result.confirmAs : null
  const state: 'idle' | 'loading' | 'success' | 'error' | 'confirm' = verified
    ? 'success'
    : !token
      ? 'error'
      : fetcher.state !== 'idle'
        ? 'loading'
        : confirmAs
          ? 'confirm'
          : result
            ? 'error'
            : started.current
              ? 'loading'
              : 'idle'

  useEffect(() => {
    if (verified) toast({ title: 'Email verified', description: VERIFY_SUCCESS, variant: 'success' })
  }, [verified])

  const errorText = !token ? VERIFY_TOKEN_MISSING : (result && 'error' in result && result.error) || VERIFY_FAILURE

  return (
    <div className="mx-auto w-full max-w-md px-4 py-12 sm:py-20">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 text-center shadow-sm sm:p-8" data-state={state} data-testid="verify-email">
        <StatusIcon state={state === 'confirm' ? 'idle' : state} />
        {state === 'confirm' ? (
          <>
            <h1 className="mt-4 text-2xl font-bold text-slate-900">Whose account is this?</h1>
            <p className="mt-2 text-sm text-slate-600 [overflow-wrap:anywhere]" data-testid="verify-continue-as">
              {continueAsText(confirmAs ?? '')}
            </p>
            <fetcher.Form method="post" action={formAction} className="mt-6">
              <input type="hidden" name="token" value={token ?? ''} />
              <input type="hidden" name={CONTINUE_FIELD} value="1" />
              {fromField}
              <button type="submit" className={buttonClass('primary', 'w-full [overflow-wrap:anywhere]')}>
                Continue as {confirmAs}
              </button>
            </fetcher.Form>
            <Link to="/" className={buttonClass('secondary', 'mt-2 w-full')}>
              Not my account
            </Link>
          </>
        ) : state === 'idle' ? (
          <>
            <h1 className="mt-4 text-2xl font-bold text-slate-900">Confirm your email</h1>
            <p className="mt-2 text-sm text-slate-600">One click confirms your address and signs you in.</p>
            <fetcher.Form method="post" action={formAction} className="mt-6">
              <input type="hidden" name="token" value={token ?? ''} />
              {fromField}
              <button type="submit" className={buttonClass('primary', 'w-full')}>
                Confirm my email
              </button>
            </fetcher.Form>
          </>
        ) : state === 'loading' ? (
          <div role="status">
            <h1 className="mt-4 text-2xl font-bold text-slate-900">Verifying your email...</h1>
            <p className="mt-2 text-sm text-slate-600">This only takes a moment.</p>
          </div>
        ) : state === 'success' ? (
          <div role="status">
            <h1 className="mt-4 text-2xl font-bold text-slate-900">Email verified</h1>
            <p className="mt-2 text-sm text-slate-600">{VERIFY_SUCCESS}</p>
            <Link to="/dashboard" className={buttonClass('primary', 'mt-6 w-full')}>
              Go to dashboard
            </Link>
          </div>
        ) : (
          <div role="alert">
            <h1 className="mt-4 text-2xl font-bold text-slate-900">Verification failed</h1>
            <p className="mt-2 text-sm text-slate-600" data-testid="verify-error">
              {errorText}
            </p>
            <div className="mt-6 flex flex-col gap-2 sm:flex-row">
              <fetcher.Form method="post" action={formAction} className="flex-1">
                <input type="hidden" name="token" value={token ?? ''} />
                {fromField}
                <button type="submit" className={buttonClass('primary', 'w-full')} disabled={!token}>
                  Try again
                </button>
              </fetcher.Form>
              <Link to={from ? `/login?${new URLSearchParams({ from })}` : '/login'} className={buttonClass('secondary', 'flex-1')}>
                Back to login
              </Link>
            </div>
          </div>
        )}
      </div>
      {welcome ? <WelcomeDialog credits={bonus} /> : null}
    </div>
  )
}
