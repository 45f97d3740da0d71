// /credits: the credit dashboard of spec §2. Renders fully without JavaScript; with it, a signed-in
// user's numbers refresh every 4 s.
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { data, Link, useLoaderData } from '@remix-run/react'
import { ActivityList } from '~/features/credits/activity-list'
import { loadCreditsPage } from '~/features/account/credits-page.server'
import { EMPTY_PACKAGES, formatPrice, percentRemaining } from '~/features/credits/display'
import type { CreditPackage } from '~/features/credits/packages.server'
import { guestRenewalRule } from '~/features/credits/guest-rule'
import { useCreditPolling } from '~/features/credits/use-credit-polling'
import { creditsNoun, formatCredits } from '~/utils/credits-word'

export const meta: MetaFunction = () => [
  { title: 'Credits · Facet Studio' },
  { name: 'description', content: 'Your Facet Studio credit balance, usage and recent activity.' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const page = await loadCreditsPage(request)
  return data(page, { headers: { 'Cache-Control': 'private, no-store' } })
}

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

function StatCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-label={title} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 className="text-sm font-medium text-slate-600">{title}</h2>
      {children}
    </section>
  )
}

function RemainingBar({ percent }: { percent: number }) {
  const rounded = Math.round(percent)
  return (
    <div className="mt-4">
      <div
        role="progressbar"
        aria-label="Credits remaining"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={rounded}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
      >
        <div className="h-full rounded-full bg-indigo-600" style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-2 text-xs text-slate-600">{rounded}% remaining</p>
    </div>
  )
}

function PackageCard({ pkg }: { pkg: CreditPackage }) {
  return (
    <li className="flex flex-col rounded-2xl border border-slate-200 bg-white p-5">
      <div className="flex items-start justify-between gap-2">
        <p className="text-lg font-semibold text-slate-900">{formatCredits(pkg.credits)}</p>
        {pkg.label ? (
          <span className="rounded-full bg-indigo-50 px-2.5 py-0.5 text-xs font-semibold text-indigo-700">{pkg.label}</span>
        ) : null}
      </div>
      <p className="mt-1 text-2xl font-bold text-slate-900">{formatPrice(pkg.price)}</p>
      <button
        type="button"
        disabled
        className="mt-4 w-full cursor-not-allowed rounded-lg bg-slate-200 px-4 py-2.5 text-sm font-semibold text-slate-500"
      >
        Purchases paused
      </button>
    </li>
  )
}

export default function CreditsRoute() {
  const page = useLoaderData<typeof loader>()
  useCreditPolling(page.signedIn)
  const { summary } = page
  const percent = percentRemaining(summary.balance, summary.lifetimeSpent)

  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6">
      <header>
        <h1 className="text-3xl font-bold tracking-tight text-slate-950">Credits</h1>
        <p className="mt-2 text-slate-600">
          {page.signedIn
            ? 'Your account balance, usage and recent activity.'
            : `Visitors get up to ${formatCredits(page.guestDailyCredits)} a day. ${guestRenewalRule()}.`}
          {' '}
          <Link to="/history" className={`font-semibold text-indigo-700 underline underline-offset-2 ${focusRing}`}>
            Your runs of the last 24 hours
          </Link>
        </p>
      </header>

      <div className="mt-8 grid gap-4 sm:grid-cols-3">
        <StatCard title="Current balance">
          <p className="mt-2 text-3xl font-bold tabular-nums text-slate-950" data-testid="credits-balance">
            {summary.balance.toLocaleString('en-US')}
          </p>
          <p className="text-sm text-slate-600">{page.source === 'user' ? 'account credits' : 'guest credits'}</p>
          <RemainingBar percent={percent} />
        </StatCard>
        <StatCard title="Lifetime usage">
          <p className="mt-2 text-3xl font-bold tabular-nums text-slate-950">{summary.lifetimeSpent.toLocaleString('en-US')}</p>
          <p className="text-sm text-slate-600">
            credits used in {summary.usageEvents.toLocaleString('en-US')} {summary.usageEvents === 1 ? 'usage event' : 'usage events'}
          </p>
        </StatCard>
        <StatCard title="Bonuses & top-ups">
          <p className="mt-2 text-3xl font-bold tabular-nums text-slate-950">{summary.topUps.toLocaleString('en-US')}</p>
          <p className="text-sm text-slate-600">credit bonuses and top-ups received</p>
        </StatCard>
      </div>

      <div role="status" className="mt-8 rounded-2xl border border-amber-300 bg-amber-50 p-4 text-amber-900">
        <p className="font-semibold">Purchasing temporarily paused</p>
        <p className="mt-1 text-sm">
          Credit packages cannot be bought right now. Your balance and the daily refresh keep working as usual.
        </p>
      </div>

      {page.signedIn ? null : (
        <div role="alert" className="mt-4 rounded-2xl border border-sky-200 bg-sky-50 p-4 text-sky-900">
          <p className="font-semibold">Sign in to purchase credits</p>
          <p className="mt-1 text-sm">
            Packages are for accounts.{' '}
            <Link to="/login?from=/credits" className={`font-semibold underline ${focusRing}`}>
              Sign in or create an account
            </Link>{' '}
            {page.signupBonus > 0 ? `to get ${page.signupBonus} free ${creditsNoun(page.signupBonus)}.` : 'to buy packages.'}
          </p>
        </div>
      )}

      <section aria-labelledby="packages-heading" className="mt-10">
        <h2 id="packages-heading" className="text-xl font-semibold text-slate-950">
          Credit packages
        </h2>
        {page.packages.length === 0 ? (
          <p className="mt-4 rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-600">
            {EMPTY_PACKAGES}
          </p>
        ) : (
          <ul className="mt-4 grid gap-4 sm:grid-cols-3">
            {page.packages.map((pkg) => (
              <PackageCard key={pkg.id} pkg={pkg} />
            ))}
          </ul>
        )}
        <p className="mt-4 text-sm text-slate-600">
          Need more credits, an invoice or a team plan?{' '}
          <Link to="/contact" className={`font-semibold text-indigo-700 underline ${focusRing}`}>
            Contact us
          </Link>
        </p>
      </section>

      <section aria-labelledby="activity-heading" className="mt-10">
        <h2 id="activity-heading" className="text-xl font-semibold text-slate-950">
          Recent activity
        </h2>
        <div className="mt-4">
          <ActivityList transactions={page.recent} />
        </div>
      </section>
    </div>
  )
}
