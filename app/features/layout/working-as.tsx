// The header's "Working as" switch, shown to a signed-in user who belongs to a team: own balance or
// one of the teams. A real form posting to /teams/working-as, so it works without JavaScript (with a
// Switch button); with JavaScript the choice is sent as soon as it changes and the page's data (the
// credit count among it) reloads.
import { Link, useFetcher, useLocation } from '@remix-run/react'
import type { Viewer } from '~/features/account/viewer'
import { useHydrated } from '~/ui/use-hydrated'
import { useClosingDetails } from '~/features/layout/disclosure'
import { creditsLabel } from '~/features/layout/nav'
import { WORKING_AS_ACTION } from '~/features/teams/working-as'

export const OWN_BALANCE_LABEL = 'Your balance'

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

export function WorkingAsForm({
  viewer,
  idPrefix,
  className = '',
  selectClass = 'max-w-44',
  stacked = false,
}: {
  viewer: Viewer
  idPrefix: string
  className?: string
  selectClass?: string
  /** The label above the select (the mobile menu), instead of beside it. */
  stacked?: boolean
}) {
  const fetcher = useFetcher()
  const hydrated = useHydrated()
  const location = useLocation()
  if (!viewer.user || viewer.teams.length === 0) return null
  const id = `${idPrefix}-working-as`
  // While the switch is on its way, show the choice already made.
  const pending = fetcher.formData?.get('team')
  const selected = typeof pending === 'string' ? pending : (viewer.workingTeam?.id ?? '')
  return (
    <fetcher.Form
      method="post"
      action={WORKING_AS_ACTION}
      className={`flex min-w-0 flex-wrap items-center gap-1.5 ${className}`}
      data-testid={`${idPrefix}-working-as-form`}
    >
      <input type="hidden" name="from" value={location.pathname + location.search} />
      <label htmlFor={id} className={`shrink-0 text-xs font-medium text-slate-600 ${stacked ? 'basis-full' : ''}`}>
        Working as
      </label>
      <select
        id={id}
        name="team"
        value={selected}
        onChange={(event) => {
          if (event.currentTarget.form) fetcher.submit(event.currentTarget.form)
        }}
        className={`min-w-0 ${selectClass} truncate rounded-full border border-slate-300 bg-white py-1.5 pl-3 pr-8 text-sm font-medium text-slate-900 ${focusRing}`}
      >
        <option value="">{OWN_BALANCE_LABEL}</option>
        {viewer.teams.map((team) => (
          <option key={team.id} value={team.id}>
            {team.name}
          </option>
        ))}
      </select>
      {hydrated ? null : (
        <button type="submit" className={`shrink-0 rounded-full border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 ${focusRing}`}>
          Switch
        </button>
      )}
    </fetcher.Form>
  )
}

/**
 * The header's credits pill for a signed-in user who belongs to a team, at every width: it names the
 * balance being spent (the team's name, or "Your balance") over its credits, and opens the "Working
 * as" switch (a disclosure: it opens without JavaScript), with the way to the credits page.
 */
export function WorkingAsMenu({ viewer }: { viewer: Viewer }) {
  const ref = useClosingDetails()
  if (!viewer.user || viewer.teams.length === 0) return null
  const current = viewer.workingTeam?.name ?? OWN_BALANCE_LABEL
  return (
    <details ref={ref} className="group relative" data-testid="working-as-menu">
      <summary
        className={`flex cursor-pointer list-none items-center gap-1 rounded-full border border-indigo-200 bg-indigo-50 px-2 py-1 text-indigo-800 hover:bg-indigo-100 sm:gap-1.5 sm:pl-2.5 ${focusRing} [&::-webkit-details-marker]:hidden`}
        data-testid="credits-button"
      >
        <svg viewBox="0 0 20 20" className="h-4 w-4 shrink-0" aria-hidden="true">
          <circle cx="7" cy="7" r="2.75" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <circle cx="13.5" cy="8" r="2.25" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M2.5 16c.6-2.6 2.3-4 4.5-4s3.9 1.4 4.5 4M11.5 12.3c.6-.2 1.3-.3 2-.3 1.9 0 3.4 1.2 4 3.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
        </svg>
        <span className="flex min-w-0 flex-col leading-tight">
          <span className="sr-only">Working as </span>
          <span className="max-w-[4.5rem] truncate text-[11px] font-medium text-indigo-700 sm:max-w-40" data-testid="working-as-name" title={current}>
            {current}
          </span>
          <span className="sr-only">: </span>
          <span className="whitespace-nowrap text-sm font-semibold">{creditsLabel(viewer.credits)}</span>
        </span>
        {/* The chevron from 640 px up: on a phone the header has no room for it. */}
        <svg viewBox="0 0 20 20" className="hidden h-4 w-4 shrink-0 transition-transform group-open:rotate-180 sm:block" aria-hidden="true">
          <path d="M5 7.5 10 12.5 15 7.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
        </svg>
      </summary>
      <div className="absolute right-0 top-full z-50 mt-2 w-[min(18rem,calc(100vw-1.5rem))] rounded-2xl border border-slate-200 bg-white p-4 shadow-xl">
        <WorkingAsForm viewer={viewer} idPrefix="header" selectClass="flex-1" stacked />
        <p className="mt-2 text-xs text-slate-600">The tools, the batch screen and this browser’s API calls spend the chosen balance.</p>
        <p className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <Link to="/credits" className="font-semibold text-indigo-700 underline underline-offset-2">
            Credits and history
          </Link>
          <Link to="/teams" className="font-semibold text-indigo-700 underline underline-offset-2">
            Your teams
          </Link>
        </p>
      </div>
    </details>
  )
}
