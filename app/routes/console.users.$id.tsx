// /console/users/<id>: one user's balance, teams, latest ledger rows and audit entries, and the form
// that grants them credits (the operator channel's `grant`, with this operator as the audit actor).
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { recentAudit, userDetail } from '~/features/console/accounts.server'
import { grantNotice, grantUserCredits } from '~/features/console/changes.server'
import { runConsoleForm } from '~/features/console/form-actions.server'
import { grantFormSchema } from '~/features/console/forms'
import { requireOperator } from '~/features/account/guards.server'
import { takeConsoleNotice } from '~/features/console/notice.server'
import { GrantForm } from '~/features/console/ui/adjust-forms'
import { ConsoleNotice, Figure, SectionHeading } from '~/features/console/ui/parts'
import { AuditTable, LedgerTable } from '~/features/console/ui/tables'

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request)
  const user = await userDetail(params.id ?? '')
  if (!user) throw new Response('Not found', { status: 404 })
  const audit = await recentAudit({ involving: user.id })
  const { notice, headers } = await takeConsoleNotice(request)
  return data({ user, audit, notice }, { headers })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const operator = await requireOperator(request)
  const userId = params.id ?? ''
  const form = await request.formData()
  if (form.get('intent') !== 'grant') throw new Response('Unknown form', { status: 400 })
  return runConsoleForm('grant', form, grantFormSchema, async (value) => {
    await grantUserCredits(operator, userId, value)
    return grantNotice(value)
  }, `/console/users/${userId}`)
}

export default function ConsoleUser() {
  const { user, audit, notice } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">{user.email}</h1>
      <ConsoleNotice text={notice} />
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Balance" value={String(user.balance)} />
        <Figure label="Lifetime spent" value={String(user.lifetimeSpent)} />
        <Figure label="Name" value={user.name ?? '—'} />
        <Figure label="Email verified" value={user.verified ? 'Yes' : 'No'} />
      </dl>
      {user.teams.length ? (
        <p className="mt-4 text-sm text-slate-700">
          Teams:{' '}
          {user.teams.map((t, i) => (
            <span key={t.id}>
              {i > 0 ? ', ' : ''}
              <Link to={`/console/teams/${t.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
                {t.name}
              </Link>{' '}
              ({t.role})
            </span>
          ))}
        </p>
      ) : null}
      <div className="mt-6 max-w-xl">
        <GrantForm whose={user.email} />
      </div>
      <section>
        <SectionHeading id="ledger-heading">Latest ledger rows</SectionHeading>
        <LedgerTable rows={user.ledger} />
      </section>
      <section>
        <SectionHeading id="audit-heading">Audit entries by or about this user</SectionHeading>
        <AuditTable rows={audit} />
        <p className="mt-2 text-sm">
          <Link to={`/console/audit?target=${user.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
            All audit entries about this user
          </Link>
        </p>
      </section>
    </>
  )
}
