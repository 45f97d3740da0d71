// /console: users and teams with their balances, searched by email, name or team name (one GET form,
// so it works without JavaScript and the address can be shared), each list a page at a time.
import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { searchTeams, searchUsers } from '~/features/console/accounts.server'
import { requireOperator } from '~/features/account/guards.server'
import { pageParam } from '~/utils/paging'
import { cellClass, ConsoleTable, Pager, SectionHeading, UtcTime } from '~/features/console/ui/parts'
import { buttonClass, inputClass } from '~/ui/button'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const url = new URL(request.url)
  const q = (url.searchParams.get('q') ?? '').slice(0, 200)
  const userPage = pageParam(url, 'users')
  const teamPage = pageParam(url, 'teams')
  const [users, teams] = await Promise.all([searchUsers(q, userPage), searchTeams(q, teamPage)])
  return data({ q, users: { ...users, page: userPage }, teams: { ...teams, page: teamPage } }, { headers: { 'Cache-Control': 'private, no-store' } })
}

export default function ConsoleAccounts() {
  const { q, users, teams } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">Accounts</h1>
      <Form method="get" role="search" className="mt-4 flex flex-wrap items-end gap-3">
        <div className="min-w-0 flex-1 sm:max-w-md">
          <label htmlFor="console-search" className="block text-sm font-medium text-slate-800">
            Search by email, name or team
          </label>
          <input id="console-search" name="q" type="search" defaultValue={q} className={`mt-1.5 ${inputClass}`} />
        </div>
        <button type="submit" className={buttonClass('secondary')}>
          Search
        </button>
      </Form>

      <section>
        <SectionHeading id="users-heading">Users</SectionHeading>
        <ConsoleTable label="Users" head={['Email', 'Name', 'Balance', 'Spent', 'Joined']} empty={users.rows.length === 0}>
          {users.rows.map((u) => (
            <tr key={u.id}>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>
                <Link to={`/console/users/${u.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
                  {u.email}
                </Link>
                {u.verified ? null : <span className="ml-2 text-xs text-slate-600">(not verified)</span>}
              </td>
              <td className={cellClass}>{u.name ?? '—'}</td>
              <td className={`${cellClass} tabular-nums`}>{u.balance}</td>
              <td className={`${cellClass} tabular-nums`}>{u.lifetimeSpent}</td>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={u.createdAt} />
              </td>
            </tr>
          ))}
        </ConsoleTable>
        <Pager label="Users pages" param="users" page={users.page} hasMore={users.hasMore} />
      </section>

      <section>
        <SectionHeading id="teams-heading">Teams</SectionHeading>
        <ConsoleTable label="Teams" head={['Team', 'Members', 'Seats', 'Balance', 'Created']} empty={teams.rows.length === 0}>
          {teams.rows.map((t) => (
            <tr key={t.id}>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>
                <Link to={`/console/teams/${t.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
                  {t.name}
                </Link>
              </td>
              <td className={`${cellClass} tabular-nums`}>{t.members}</td>
              <td className={`${cellClass} tabular-nums`}>{t.seatLimit}</td>
              <td className={`${cellClass} tabular-nums`}>{t.balance}</td>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={t.createdAt} />
              </td>
            </tr>
          ))}
        </ConsoleTable>
        <Pager label="Teams pages" param="teams" page={teams.page} hasMore={teams.hasMore} />
      </section>
    </>
  )
}
