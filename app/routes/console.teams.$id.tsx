// /console/teams/<id>: one team's balance, seats, members, latest ledger rows and audit entries, and
// the forms that grant it credits and change its seats (the operator channel's `grant-team` and
// `team-seats`, with this operator as the audit actor).
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { recentAudit, teamDetail } from '~/features/console/accounts.server'
import { changeTeamSeats, grantNotice, grantTeamCredits } from '~/features/console/changes.server'
import { runConsoleForm } from '~/features/console/form-actions.server'
import { grantFormSchema, seatsFormSchema } from '~/features/console/forms'
import { requireOperator } from '~/features/account/guards.server'
import { takeConsoleNotice } from '~/features/console/notice.server'
import { GrantForm, SeatsForm } from '~/features/console/ui/adjust-forms'
import { cellClass, ConsoleNotice, ConsoleTable, Figure, SectionHeading } from '~/features/console/ui/parts'
import { AuditTable, LedgerTable } from '~/features/console/ui/tables'

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request)
  const team = await teamDetail(params.id ?? '')
  if (!team) throw new Response('Not found', { status: 404 })
  const audit = await recentAudit({ target: team.id })
  const { notice, headers } = await takeConsoleNotice(request)
  return data({ team, audit, notice }, { headers })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const operator = await requireOperator(request)
  const teamId = params.id ?? ''
  const here = `/console/teams/${teamId}`
  const form = await request.formData()
  switch (form.get('intent')) {
    case 'grant':
      return runConsoleForm('grant', form, grantFormSchema, async (value) => {
        await grantTeamCredits(operator, teamId, value)
        return grantNotice(value)
      }, here)
    case 'seats':
      return runConsoleForm('seats', form, seatsFormSchema, async (value) => {
        await changeTeamSeats(operator, teamId, value)
        return 'seats'
      }, here)
    default:
      throw new Response('Unknown form', { status: 400 })
  }
}

export default function ConsoleTeam() {
  const { team, audit, notice } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">{team.name}</h1>
      <ConsoleNotice text={notice} />
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Balance" value={String(team.balance)} />
        <Figure label="Members" value={String(team.members)} />
        <Figure label="Seats" value={String(team.seatLimit)} />
        <Figure label="Team id" value={team.id} />
      </dl>
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <GrantForm whose={`team ${team.name}`} />
        <SeatsForm current={team.seatLimit} />
      </div>
      <section>
        <SectionHeading id="members-heading">Members</SectionHeading>
        <ConsoleTable label="Members" head={['Email', 'Role', 'Monthly cap']} empty={team.memberList.length === 0}>
          {team.memberList.map((m) => (
            <tr key={m.id}>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>
                <Link to={`/console/users/${m.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
                  {m.email}
                </Link>
              </td>
              <td className={cellClass}>{m.role}</td>
              <td className={`${cellClass} tabular-nums`}>{m.cap ?? 'none'}</td>
            </tr>
          ))}
        </ConsoleTable>
      </section>
      <section>
        <SectionHeading id="ledger-heading">Latest ledger rows</SectionHeading>
        <LedgerTable rows={team.ledger} />
      </section>
      <section>
        <SectionHeading id="audit-heading">Audit entries about this team</SectionHeading>
        <AuditTable rows={audit} />
        <p className="mt-2 text-sm">
          <Link to={`/console/audit?target=${team.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
            All audit entries about this team
          </Link>
        </p>
      </section>
    </>
  )
}
