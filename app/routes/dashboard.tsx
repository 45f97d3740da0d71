// /dashboard: the signed-in user's workspace. Behind the guard (signed-out visitors go to
// /login?from=/dashboard, history replaced); the figures refresh every 4 s while visible.
import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import { loadDevelopers } from '~/features/developers/developers.server'
import { DevelopersSection } from '~/features/developers/ui/developers-section'
import { loadDashboard } from '~/features/account/dashboard.server'
import { takeRightsNotice } from '~/features/rights/notice.server'
import { YourDataSection } from '~/features/rights/ui/your-data-section'
import { displayName } from '~/features/auth/display'
import { relativeTime } from '~/features/auth/relative-time'
import { ActivityList } from '~/features/credits/activity-list'
import { formatCredits, kindLabel, percentRemaining } from '~/features/credits/display'
import { useCreditPolling } from '~/features/credits/use-credit-polling'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'Dashboard · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const dashboard = await loadDashboard(request)
  const developers = await loadDevelopers(request, dashboard.user)
  const rightsNotice = await takeRightsNotice(request)
  const headers = new Headers({ 'Cache-Control': 'private, no-store' })
  if (developers.setCookie) headers.append('Set-Cookie', developers.setCookie)
  if (rightsNotice.clear) headers.append('Set-Cookie', rightsNotice.clear)
  return data({ ...dashboard, developers: developers.data, rightsNotice: rightsNotice.message }, { headers })
}

function StatCard({ label, value, detail, testId, children }: { label: string; value: string; detail: string; testId: string; children?: ReactNode }) {
  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" data-testid={testId}>
      <p className="text-sm font-medium text-slate-600">{label}</p>
      <p className="mt-2 text-2xl font-bold tabular-nums text-slate-900">{value}</p>
      <p className="mt-1 text-sm text-slate-600">{detail}</p>
      {children}
    </div>
  )
}

export default function DashboardPage() {
  const dashboard = useLoaderData<typeof loader>()
  useCreditPolling(true)
  const { summary, user } = dashboard
  const percent = Math.round(percentRemaining(summary.balance, summary.lifetimeSpent))
  const name = displayName(user)

  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6">
      <div className="flex min-w-0 flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        {/* min-w-0: long emails wrap instead of widening the page on phones. */}
        <div>
          <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Dashboard</p>
          <h1 className="mt-1 text-3xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">
            {/* 'back' only for someone who has been here before: a new account has not used a tool yet. */}
            {summary.usageEvents > 0 ? 'Welcome back' : 'Welcome'}, {name}
          </h1>
        </div>
        <div className="flex flex-wrap gap-2">
          <Link to="/teams" className={buttonClass('secondary')}>
            Teams
          </Link>
          <Link to="/credits" className={buttonClass('secondary')}>
            Manage credits
          </Link>
          <Link to="/history" className={buttonClass('secondary')}>
            History
          </Link>
          <Link to="/tools/background-remover" className={buttonClass('primary')}>
            Start a tool
          </Link>
        </div>
      </div>

      <section aria-label="Credit summary" className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="Credits balance" value={formatCredits(summary.balance)} detail={`${percent}% remaining`} testId="card-balance">
          <div
            className="mt-3 h-2 overflow-hidden rounded-full bg-slate-100"
            role="progressbar"
            aria-label="Credits remaining"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
          >
            <div className="h-full rounded-full bg-indigo-600" style={{ width: `${percent}%` }} />
          </div>
        </StatCard>
        <StatCard
          label="Lifetime spent"
          value={formatCredits(summary.lifetimeSpent)}
          detail={`${summary.usageEvents.toLocaleString('en-US')} usage ${summary.usageEvents === 1 ? 'event' : 'events'}`}
          testId="card-spent"
        />
        <StatCard
          label="Total transactions"
          value={dashboard.totalTransactions.toLocaleString('en-US')}
          detail={`${summary.topUps.toLocaleString('en-US')} ${summary.topUps === 1 ? 'grant or purchase' : 'grants and purchases'}`}
          testId="card-transactions"
        />
        <StatCard
          label="Last activity"
          value={dashboard.lastActivity ? relativeTime(dashboard.lastActivity.created_at, dashboard.now) : 'No usage yet'}
          detail={dashboard.lastActivity ? kindLabel(dashboard.lastActivity.kind) : 'Run a tool to get started.'}
          testId="card-last-activity"
        />
      </section>

      <div className="mt-8 grid gap-6 lg:grid-cols-3">
        <section aria-labelledby="recent-activity" className="min-w-0 lg:col-span-2">
          <h2 id="recent-activity" className="mb-3 text-lg font-semibold text-slate-900">
            Recent activity
          </h2>
          <ActivityList transactions={dashboard.recent} />
        </section>
        <section aria-labelledby="account-overview" className="min-w-0">
          <h2 id="account-overview" className="mb-3 text-lg font-semibold text-slate-900">
            Account overview
          </h2>
          <dl className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white text-sm" data-testid="account-overview">
            {[
              ['Display name', name],
              ['Email', user.email],
              ['Account type', dashboard.source || 'visitor'],
              ['Balance', formatCredits(summary.balance)],
              ['Lifetime spent', formatCredits(summary.lifetimeSpent)],
              ['Transactions tracked', dashboard.totalTransactions.toLocaleString('en-US')],
            ].map(([term, value]) => (
              <div key={term} className="flex items-center justify-between gap-4 px-4 py-3">
                <dt className="shrink-0 text-slate-600">{term}</dt>
                <dd className="min-w-0 truncate text-right font-medium text-slate-900">{value}</dd>
              </div>
            ))}
          </dl>
        </section>
      </div>

      <DevelopersSection data={dashboard.developers} now={dashboard.now} />
      <YourDataSection notice={dashboard.rightsNotice} />
    </div>
  )
}
