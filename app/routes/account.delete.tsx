// /account/delete: deleting one's account (decision 171), confirmed by typing the password. A real form
// first (JavaScript off: the post renders the refusal, or redirects to /account/deleted), enhanced by
// conform. Refusals (wrong password, last owner of a team, runs in progress) come back on the form.
import { getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { deleteAccount, deletionPreview } from '~/features/rights/deletion.server'
import { requireUser } from '~/features/account/guards.server'
import { limitDeletion } from '~/features/rights/limits.server'
import { DELETE_LIMITED, DELETION_KEEPS, DELETION_REMOVES, lastOwnerMessage, YOUR_DATA_ANCHOR } from '~/features/rights/messages'
import { deleteAccountSchema } from '~/features/rights/schemas'
import { clearSessionCookieHeader } from '~/features/auth/session.server'
import { Alert, PasswordField } from '~/features/auth/ui/fields'
import { formatCredits } from '~/features/credits/display'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'Delete your account · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireUser(request)
  const preview = await deletionPreview(user.id)
  return data({ email: user.email, ...preview }, { headers: { 'Cache-Control': 'private, no-store' } })
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request)
  const submission = parseWithZod(await request.formData(), { schema: deleteAccountSchema })
  const hideFields = ['password']
  if (submission.status !== 'success') return data({ result: submission.reply({ hideFields }) }, { status: 400 })
  const limited = await limitDeletion(user.id)
  if (!limited.ok) {
    return data({ result: submission.reply({ formErrors: [DELETE_LIMITED], hideFields }) }, { status: 429, headers: { 'Retry-After': String(limited.retryAfterSeconds) } })
  }
  const outcome = await deleteAccount(user.id, { password: submission.value.password, via: 'dashboard' })
  if (!outcome.ok) return data({ result: submission.reply({ formErrors: [outcome.message], hideFields }) }, { status: outcome.status })
  // This browser's session went with the others: its cookie goes too.
  return redirect('/account/deleted', { headers: { 'Set-Cookie': await clearSessionCookieHeader() } })
}

export default function DeleteAccountPage() {
  const { email, balance, blockingTeams } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const [form, fields] = useForm({
    id: 'delete-account-form',
    lastResult: actionData?.result,
    constraint: getZodConstraint(deleteAccountSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: deleteAccountSchema }),
  })
  const busy = navigation.state === 'submitting'

  return (
    <div className="mx-auto w-full max-w-xl px-4 py-10 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Delete your account</h1>
        <p className="mt-2 text-sm text-slate-600 [overflow-wrap:anywhere]">
          This deletes the account of <strong className="text-slate-900">{email}</strong> at once, and cannot be undone. Download your data first if you want to keep it.
        </p>
        <p className="mt-4 text-sm font-medium text-slate-800">When you delete your account:</p>
        <ul className="mt-1 list-disc space-y-1 pl-5 text-sm text-slate-700">
          {DELETION_REMOVES.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p className="mt-3 text-sm text-slate-600">{DELETION_KEEPS}</p>
        {balance > 0 ? <p className="mt-3 text-sm font-medium text-slate-800">Your balance of {formatCredits(balance)} will be forfeited.</p> : null}
        {blockingTeams.length > 0 ? (
          <div className="mt-4">
            <Alert variant="info" title="Before you can delete your account">
              {lastOwnerMessage(blockingTeams)}{' '}
              <Link to="/teams" className="font-semibold underline">
                Your teams
              </Link>
            </Alert>
          </div>
        ) : null}
        <Form method="post" {...getFormProps(form)} className="mt-6 space-y-4">
          {form.errors?.length ? (
            <Alert variant="destructive" title="Your account was not deleted" testId="delete-error">
              {form.errors[0]}
            </Alert>
          ) : null}
          <PasswordField field={fields.password} label="Your password" autoComplete="current-password" />
          <div className="flex flex-wrap gap-3">
            <button type="submit" className={buttonClass('danger')} disabled={busy}>
              {busy ? 'Deleting...' : 'Delete my account'}
            </button>
            <Link to={YOUR_DATA_ANCHOR} className={buttonClass('secondary')}>
              Keep my account
            </Link>
          </div>
        </Form>
      </div>
    </div>
  )
}
