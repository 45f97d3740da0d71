// The header's "Working as" switch, shown to a signed-in user who belongs to a team: own balance or
// one of the teams. A real form posting to /teams/working-as, so it works without JavaScript (with a
// Switch button); with JavaScript the choice is sent as soon as it changes and the page's data (the
// credit count among it) reloads.
import { useFetcher, useLocation } from '@remix-run/react'
import type { Viewer } from '~/features/viewer'
import { useHydrated } from '../use-hydrated'

export const WORKING_AS_ACTION = '/teams/working-as'
export const OWN_BALANCE_LABEL = 'Your balance'

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

export function WorkingAsForm({ viewer, idPrefix, className = '' }: { viewer: Viewer; idPrefix: string; className?: string }) {
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
      className={`flex min-w-0 items-center gap-1.5 ${className}`}
      data-testid={`${idPrefix}-working-as-form`}
    >
      <input type="hidden" name="from" value={location.pathname + location.search} />
      <label htmlFor={id} className="shrink-0 text-xs font-medium text-slate-600">
        Working as
      </label>
      <select
        id={id}
        name="team"
        value={selected}
        onChange={(event) => {
          if (event.currentTarget.form) fetcher.submit(event.currentTarget.form)
        }}
        className={`min-w-0 max-w-40 truncate rounded-full border border-slate-300 bg-white py-1.5 pl-3 pr-8 text-sm font-medium text-slate-900 ${focusRing}`}
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
