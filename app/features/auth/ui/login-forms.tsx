// The pieces of /login: the sign-in, create-account and forgot-password forms, the resend button,
// and the (disabled) social buttons. Every form posts to /login with an `intent` and works without
// JavaScript; conform + zod validate in the browser once it runs.
import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, useFetcher, useNavigation } from '@remix-run/react'
import { useEffect, useRef, useState } from 'react'
import { buttonClass, inputClass } from '~/ui/button'
import { toast } from '~/ui/toast'
import { useHydrated } from '~/ui/use-hydrated'
import { CHECK_INBOX, CHECK_INBOX_RETURNS, GENERIC_FAILURE, RESEND_REQUESTED, RESET_REQUESTED } from '../messages'
import { DEFAULT_AFTER_SIGN_IN } from '../redirect'
import { emailOnlySchema, loginSchema, PASSWORD_RULE, registerFormSchema } from '../schemas'
import { Alert, PasswordField, TextField } from './fields'

/** What the /login action answers, per intent. */
export type LoginActionData =
  | { intent: 'login'; result: SubmissionResult<string[]>; code?: string; email?: string }
  | { intent: 'register'; result: SubmissionResult<string[]>; registered?: { email: string; expiresInHours: number } }
  | { intent: 'forgot'; result: SubmissionResult<string[]>; sent?: boolean }
  | { intent: 'resend'; result: SubmissionResult<string[]>; sent?: boolean }

type ActionData = LoginActionData

export const linkClass =
  'font-semibold text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 rounded'

/** A /login address keeping `from` (unless it is the default). */
export function loginHref(params: Record<string, string | null>, from: string) {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v)
  if (from !== DEFAULT_AFTER_SIGN_IN) search.set('from', from)
  const s = search.toString()
  return s ? `/login?${s}` : '/login'
}

export function UnableToContinue({ errors }: { errors: string[] | undefined }) {
  if (!errors?.length) return null
  return (
    <Alert variant="destructive" title="Unable to continue" testId="auth-error">
      {errors[0] || GENERIC_FAILURE}
    </Alert>
  )
}

export function LoginForm({ from, actionData }: { from: string; actionData: ActionData | undefined }) {
  const lastResult = actionData?.intent === 'login' ? actionData.result : undefined
  const [form, fields] = useForm({
    id: 'login-form',
    lastResult,
    constraint: getZodConstraint(loginSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: loginSchema }),
  })
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'login'
  const unverified = actionData?.intent === 'login' && actionData.code === 'email_not_verified' ? actionData.email : undefined
  return (
    <>
      <Form method="post" action={loginHref({}, from)} {...getFormProps(form)} className="space-y-4">
        <input type="hidden" name="intent" value="login" />
        <input type="hidden" name="from" value={from} />
        <UnableToContinue errors={form.errors} />
        <TextField field={fields.email} label="Email" type="email" autoComplete="email" />
        <PasswordField field={fields.password} label="Password" autoComplete="current-password" />
        <button type="submit" className={buttonClass('primary', 'w-full')} disabled={busy}>
          {busy ? 'Signing in...' : 'Sign in'}
        </button>
      </Form>
      {unverified ? <ResendVerification email={unverified} from={from} /> : null}
    </>
  )
}

function ResendVerification({ email, from }: { email: string; from: string }) {
  const fetcher = useFetcher<ActionData>()
  const busy = fetcher.state !== 'idle'
  const sent = fetcher.data?.intent === 'resend' && fetcher.data.sent
  return (
    <fetcher.Form method="post" action={loginHref({}, from)} className="mt-3 rounded-xl border border-slate-200 p-4">
      <input type="hidden" name="intent" value="resend" />
      <input type="hidden" name="email" value={email} />
      <input type="hidden" name="from" value={from} />
      <p className="text-sm text-slate-700">Didn't get the email, or did the link expire?</p>
      <button type="submit" className={buttonClass('secondary', 'mt-3')} disabled={busy}>
        {busy ? 'Sending...' : 'Send a new verification email'}
      </button>
      {sent ? (
        <p role="status" className="mt-3 text-sm text-emerald-800">
          {RESEND_REQUESTED}
        </p>
      ) : null}
    </fetcher.Form>
  )
}

export function RegisterForm({ from, actionData }: { from: string; actionData: ActionData | undefined }) {
  const lastResult = actionData?.intent === 'register' ? actionData.result : undefined
  const registered = actionData?.intent === 'register' ? actionData.registered : undefined
  const [form, fields] = useForm({
    id: 'register-form',
    lastResult,
    constraint: getZodConstraint(registerFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: registerFormSchema }),
  })
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'register'

  useEffect(() => {
    if (!registered) return
    toast({ title: 'Verify your email', description: `We sent a verification link to ${registered.email}.`, variant: 'success' })
  }, [registered])

  // Once the account exists the form gives way: nothing is left to fill in, only the mail to open.
  if (registered) return <CheckInbox email={registered.email} expiresInHours={registered.expiresInHours} from={from} />

  return (
    <Form method="post" action={loginHref({ mode: 'register' }, from)} {...getFormProps(form)} className="space-y-4">
      <input type="hidden" name="intent" value="register" />
      <input type="hidden" name="from" value={from} />
      <UnableToContinue errors={form.errors} />
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField field={fields.first_name} label="First name (optional)" autoComplete="given-name" />
        <TextField field={fields.last_name} label="Last name (optional)" autoComplete="family-name" />
      </div>
      <TextField field={fields.email} label="Email" type="email" autoComplete="email" />
      <PasswordField field={fields.password} label="Password" autoComplete="new-password" hint={PASSWORD_RULE} />
      <PasswordField field={fields.confirm_password} label="Confirm password" autoComplete="new-password" />
      <button type="submit" className={buttonClass('primary', 'w-full')} disabled={busy}>
        {busy ? 'Creating account...' : 'Create account'}
      </button>
    </Form>
  )
}

function CheckInbox({ email, expiresInHours, from }: { email: string; expiresInHours: number; from: string }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section aria-labelledby="check-email-title" className="space-y-4" data-testid="check-email">
      <div className="rounded-xl border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
        <h2 id="check-email-title" ref={heading} tabIndex={-1} className="text-lg font-semibold outline-none">
          Check your email
        </h2>
        <p className="mt-2">
          We sent a verification link to <strong className="[overflow-wrap:anywhere]">{email}</strong>. It expires in {expiresInHours} hours.
        </p>
        <p className="mt-1">{from === DEFAULT_AFTER_SIGN_IN ? CHECK_INBOX : CHECK_INBOX_RETURNS}</p>
      </div>
      <ResendVerification email={email} from={from} />
      <p className="text-center text-sm text-slate-700">
        Wrong address?{' '}
        <a href={loginHref({ mode: 'register' }, from)} className={linkClass}>
          Register again
        </a>
      </p>
    </section>
  )
}

/** The reset request: a dialog with JavaScript, a section of the page (?forgot=1) without. */
export function ForgotPasswordForm({
  actionData,
  from,
  autoFocus,
  formId = 'forgot-form',
}: {
  actionData: ActionData | undefined
  from: string
  autoFocus?: boolean
  /** Names both the form (its field ids) and its fetcher: two instances must not share either. */
  formId?: string
}) {
  const fetcher = useFetcher<ActionData>({ key: formId })
  const hydrated = useHydrated()
  const result = fetcher.data ?? (actionData?.intent === 'forgot' ? actionData : undefined)
  const lastResult = result?.intent === 'forgot' ? result.result : undefined
  const sent = result?.intent === 'forgot' && result.sent
  const [email, setEmail] = useState('')
  const [form, fields] = useForm({
    id: formId,
    lastResult,
    constraint: getZodConstraint(emailOnlySchema),
    shouldValidate: 'onSubmit',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: emailOnlySchema }),
  })
  const sending = fetcher.state !== 'idle'

  const announced = useRef<unknown>(null)
  useEffect(() => {
    if (fetcher.data?.intent === 'forgot' && fetcher.data.sent && announced.current !== fetcher.data) {
      announced.current = fetcher.data
      toast({ title: 'Password reset sent', description: RESET_REQUESTED, variant: 'success' })
    }
  }, [fetcher.data])

  return (
    <fetcher.Form method="post" action={loginHref({ forgot: '1' }, from)} {...getFormProps(form)} className="space-y-4">
      <input type="hidden" name="intent" value="forgot" />
      {sent ? (
        <Alert variant="success" title="Password reset sent" testId="reset-sent">
          {RESET_REQUESTED}
        </Alert>
      ) : null}
      <UnableToContinue errors={form.errors} />
      <div>
        <label htmlFor={fields.email.id} className="block text-sm font-medium text-slate-800">
          Email
        </label>
        <input
          id={fields.email.id}
          name={fields.email.name}
          type="email"
          required
          autoComplete="email"
          autoFocus={autoFocus}
          aria-invalid={fields.email.errors ? true : undefined}
          aria-describedby={fields.email.errors ? fields.email.errorId : undefined}
          onChange={(e) => setEmail(e.currentTarget.value)}
          className={`mt-1.5 ${inputClass}`}
        />
        {fields.email.errors ? (
          <p id={fields.email.errorId} className="mt-1.5 text-sm text-red-700">
            {fields.email.errors[0]}
          </p>
        ) : null}
      </div>
      <button
        type="submit"
        className={buttonClass('primary', 'w-full')}
        // Without JavaScript the button must stay usable: it cannot know what was typed.
        disabled={sending || (hydrated && !email.trim())}
      >
        {sending ? 'Sending...' : 'Send reset link'}
      </button>
    </fetcher.Form>
  )
}

export function ForgotPasswordDialog({ open, onClose, from }: { open: boolean; onClose: () => void; from: string }) {
  const ref = useRef<HTMLDialogElement>(null)
  // Each opening gets its own form id (and so its own fetcher): reopened, the dialog starts clean,
  // with no earlier "sent" message or email, even while /login?forgot=1's own form stays mounted.
  const [opening, setOpening] = useState(0)
  const [wasOpen, setWasOpen] = useState(open)
  if (open !== wasOpen) {
    setWasOpen(open)
    if (open) setOpening((count) => count + 1)
  }
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby="forgot-title"
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl border border-slate-200 bg-white p-6 shadow-2xl backdrop:bg-slate-900/50"
    >
      <div className="flex items-start justify-between gap-4">
        <h2 id="forgot-title" className="text-lg font-semibold text-slate-900">
          Reset Password
        </h2>
        <button
          type="button"
          onClick={onClose}
          aria-label="Close"
          className="rounded-md px-2 text-xl leading-none text-slate-500 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          ×
        </button>
      </div>
      <p className="mt-1 text-sm text-slate-600">Enter your account's email and we'll send you a link to choose a new password.</p>
      <div className="mt-4">{open ? (
          <ForgotPasswordForm key={opening} formId={`forgot-dialog-${opening}`} actionData={undefined} from={from} autoFocus />
        ) : null}</div>
    </dialog>
  )
}
