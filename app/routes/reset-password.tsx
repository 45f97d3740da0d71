// /reset-password?token=...: choose a new password from the mailed link. Opening the page spends
// nothing; the token is spent only when the new password is posted. It never signs in: every session
// ends and every key the user made is revoked (decision 162), and the user signs in afresh.
import { getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { confirmPasswordReset } from '~/features/auth/accounts.server'
import { limitTokenUse } from '~/features/auth/rate-limits.server'
import { PASSWORD_RULE, resetFormSchema } from '~/features/auth/schemas'
import { clearSessionCookieHeader } from '~/features/auth/session.server'
import { Alert, PasswordField } from '~/features/auth/ui/fields'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'Choose a new password · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export function loader({ request }: LoaderFunctionArgs) {
  return { token: new URL(request.url).searchParams.get('token')?.trim() || null }
}

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await request.formData(), { schema: resetFormSchema })
  const hideFields = ['password', 'confirm_password']
  if (submission.status !== 'success') return data({ result: submission.reply({ hideFields }) }, { status: 400 })
  const limited = await limitTokenUse(request)
  if (limited) {
    return data(
      { result: submission.reply({ formErrors: [limited.message], hideFields }) },
      { status: 429, headers: { 'Retry-After': String(limited.retryAfterSeconds) } },
    )
  }
  const outcome = await confirmPasswordReset(submission.value.token, submission.value.password)
  if (!outcome.ok) return data({ result: submission.reply({ formErrors: [outcome.error], hideFields }) }, { status: 400 })
  // Every session ended, this browser's too: its cookie goes, and it signs in with the new password.
  return redirect('/login?reset=done', { headers: { 'Set-Cookie': await clearSessionCookieHeader() } })
}

export default function ResetPasswordPage() {
  const { token } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const [form, fields] = useForm({
    id: 'reset-password-form',
    lastResult: actionData?.result,
    constraint: getZodConstraint(resetFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: resetFormSchema }),
  })
  const busy = navigation.state === 'submitting'

  return (
    <div className="mx-auto w-full max-w-md px-4 py-10 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Choose a new password</h1>
        {token ? (
          <>
            <p className="mt-1 text-sm text-slate-600">Pick a password you don't use anywhere else. You'll be signed out everywhere, and the API keys you made are revoked.</p>
            <Form method="post" action={`/reset-password?${new URLSearchParams({ token })}`} {...getFormProps(form)} className="mt-6 space-y-4">
              <input type="hidden" name="token" value={token} />
              {form.errors?.length ? (
                <Alert variant="destructive" title="Unable to continue" testId="auth-error">
                  {form.errors[0]}{' '}
                  <Link to="/login?forgot=1" className="font-semibold underline">
                    Request a new link
                  </Link>
                </Alert>
              ) : null}
              <PasswordField field={fields.password} label="New password" autoComplete="new-password" hint={PASSWORD_RULE} />
              <PasswordField field={fields.confirm_password} label="Confirm new password" autoComplete="new-password" />
              <button type="submit" className={buttonClass('primary', 'w-full')} disabled={busy}>
                {busy ? 'Saving...' : 'Set new password'}
              </button>
            </Form>
          </>
        ) : (
          <div className="mt-6">
            <Alert variant="destructive" title="Unable to continue" testId="auth-error">
              This reset link is missing its token. Please use the link from your email, or{' '}
              <Link to="/login?forgot=1" className="font-semibold underline">
                request a new one
              </Link>
              .
            </Alert>
          </div>
        )}
      </div>
    </div>
  )
}
