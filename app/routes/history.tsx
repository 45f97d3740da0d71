// /history: the caller's runs of the last 24 hours, with their results while they are kept. A plain
// list without JavaScript (a Refresh link); with it, the page re-reads itself while a run is underway.
import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { useCreditPolling } from '~/features/credits/use-credit-polling'
import { EMPTY_HISTORY, hasUnderway, HISTORY_INTRO, HISTORY_POLL_MS } from '~/features/history/display'
import { loadHistoryPage } from '~/features/history/history.server'
import { HistoryList } from '~/features/history/ui/history-list'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'History · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  return data(await loadHistoryPage(request), { headers: { 'Cache-Control': 'private, no-store' } })
}

const linkClass = 'font-semibold text-indigo-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

export default function HistoryPage() {
  const page = useLoaderData<typeof loader>()
  const underway = hasUnderway(page.entries)
  useCreditPolling(underway, HISTORY_POLL_MS)

  return (
    <div className="mx-auto w-full max-w-4xl px-4 py-10 sm:px-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-slate-950">History</h1>
          <p className="mt-2 text-slate-600">
            {HISTORY_INTRO}
            {page.scope === 'team' && page.teamName ? ` Working as ${page.teamName}: the runs you sent on the team's credits.` : ''}
          </p>
        </div>
        {underway ? (
          // Without JavaScript a person refreshes by hand; with it the list follows by itself.
          <a href="/history" className={linkClass}>
            Refresh
          </a>
        ) : null}
      </div>

      {page.scope === 'visitor' && page.entries.length > 0 ? (
        <div className="mt-6 rounded-2xl border border-sky-200 bg-sky-50 p-4 text-sm text-sky-950" data-testid="history-keep">
          <p className="font-semibold">Keep these with an account</p>
          <p className="mt-1">
            When you create an account in this browser, your runs and results from the last 24 hours move into it (your guest credits do not).{' '}
            <Link to="/login?mode=register&from=/history" className={linkClass}>
              Create an account
            </Link>
          </p>
        </div>
      ) : null}

      <section aria-label="Your runs" className="mt-6">
        {page.entries.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 px-4 py-10 text-center">
            <p className="text-sm text-slate-600">{EMPTY_HISTORY}</p>
            <Link to="/tools/background-remover" className={`${buttonClass('primary')} mt-4`}>
              Remove a background
            </Link>
          </div>
        ) : (
          <HistoryList entries={page.entries} />
        )}
      </section>
    </div>
  )
}
