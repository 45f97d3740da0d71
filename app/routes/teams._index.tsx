// /teams: the signed-in user's teams (name and role) and a form to create one. Signed-out visitors
// go to /login with `from`. The create form is a plain POST (works without JavaScript), validated by
// conform + zod in the browser once it runs.
import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { requireUser } from '~/features/account/guards.server'
import { invalidReply, redirectWithNotice, takeNotice, teamErrorReply, type TeamFormReply } from '~/features/teams/team-forms.server'
import { createTeam, listTeamsForUser } from '~/features/teams/teams.server'
import { createTeamFormSchema, ROLE_LABELS, TEAM_NAME_MAX } from '~/features/teams/ui/forms'
import { FormError, Notice } from '~/features/teams/ui/parts'
import { buttonClass, inputClass } from '~/ui/button'
import { Field } from '~/ui/field'

export const meta: MetaFunction = () => [
  { title: 'Teams · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireUser(request)
  const teams = await listTeamsForUser(user.id)
  const { notice, headers } = await takeNotice(request)
  return data({ teams, notice }, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request)
  const submission = parseWithZod(await request.formData(), { schema: createTeamFormSchema })
  if (submission.status !== 'success') return invalidReply('create-team', submission)
  try {
    const team = await createTeam(user.id, submission.value.name)
    return redirectWithNotice(`/teams/${team.id}`, 'created')
  } catch (error) {
    return teamErrorReply('create-team', submission, error)
  }
}

function CreateTeamForm() {
  const reply = useActionData<typeof action>() as TeamFormReply | undefined
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formAction === '/teams?index'
  const [form, fields] = useForm({
    id: 'create-team',
    lastResult: reply?.form === 'create-team' ? reply.result : undefined,
    constraint: getZodConstraint(createTeamFormSchema),
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: createTeamFormSchema }),
  })
  const nameProps = getInputProps(fields.name, { type: 'text' })
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-3">
      <FormError errors={form.errors} />
      <Field label="Team name" htmlFor={fields.name.id} errorId={fields.name.errorId} errors={fields.name.errors}>
        <input {...nameProps} key={nameProps.key} maxLength={TEAM_NAME_MAX} placeholder="e.g. Studio North" className={inputClass} />
      </Field>
      <button type="submit" className={buttonClass('primary')} disabled={busy}>
        {busy ? 'Creating...' : 'Create team'}
      </button>
    </Form>
  )
}

export default function TeamsPage() {
  const { teams, notice } = useLoaderData<typeof loader>()
  return (
    <div className="mx-auto w-full max-w-4xl px-4 py-10 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Teams</p>
      <h1 className="mt-1 text-3xl font-bold tracking-tight text-slate-900">Your teams</h1>
      <p className="mt-2 text-slate-600">A team shares one credit balance. Its owners and admins invite people, set monthly caps and see who spent what.</p>
      <Notice text={notice} />

      <div className="mt-8 grid gap-6 md:grid-cols-[3fr_2fr]">
        <section aria-labelledby="teams-list" className="min-w-0">
          <h2 id="teams-list" className="mb-3 text-lg font-semibold text-slate-900">
            Teams you belong to
          </h2>
          {teams.length === 0 ? (
            <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-600">
              You are not in a team yet. Create one, or open an invite someone mailed you.
            </p>
          ) : (
            <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white">
              {teams.map((team) => (
                <li key={team.id} className="flex items-center justify-between gap-3 px-4 py-3">
                  <Link to={`/teams/${team.id}`} className="min-w-0 font-semibold text-indigo-700 underline-offset-2 hover:underline [overflow-wrap:anywhere]">
                    {team.name}
                  </Link>
                  <span className="shrink-0 rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-semibold text-slate-700">{ROLE_LABELS[team.role]}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="create-team-heading" className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="create-team-heading" className="mb-3 text-lg font-semibold text-slate-900">
            Create a team
          </h2>
          <CreateTeamForm />
          <p className="mt-3 text-sm text-slate-600">You become its owner. A new team starts at 0 credits: its members move their own credits in from the team’s page.</p>
        </section>
      </div>
    </div>
  )
}

