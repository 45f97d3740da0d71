// The monthly cap of a team member, as a tool page and the batch screen show it: the headroom line
// under the cost, and the over-cap panel's words with its way on, "Use my own credits". That button
// submits a form of its own (outside the tool's or batch's form, which holds the files): to
// /teams/working-as with the own balance.
// With JavaScript it goes by fetcher, so the page stays and the chosen files with it; without, the
// page reloads on the own balance (the browser cannot keep a chosen file across a post).
import { useFetcher, useLocation } from '@remix-run/react'
import { WORKING_AS_ACTION } from '../working-as'
import { headroomText, overCapText, USE_OWN_CREDITS, type CapHeadroom, type OverCapSubject } from '../headroom'

export const USE_OWN_CREDITS_FORM_ID = 'use-own-credits'

export function HeadroomLine({ teamName, cap }: { teamName: string; cap: CapHeadroom }) {
  return (
    <p className={`text-sm ${cap.left === 0 ? 'font-medium text-amber-900' : 'text-slate-700'}`} data-testid="cap-headroom">
      {headroomText(teamName, cap)}
    </p>
  )
}

/** The form the button submits: rendered by the page outside the tool's own form. */
export function UseOwnCreditsForm() {
  const location = useLocation()
  return (
    <form id={USE_OWN_CREDITS_FORM_ID} method="post" action={WORKING_AS_ACTION} hidden>
      <input type="hidden" name="team" value="" />
      <input type="hidden" name="from" value={location.pathname + location.search} />
    </form>
  )
}

export function OverCapText({
  teamName,
  cap,
  cost,
  error,
  subject = 'run',
}: {
  teamName: string
  cap: CapHeadroom
  cost: number
  error: string | null
  /** What `cost` prices: one run (the tool pages), a batch, or each file of one. */
  subject?: OverCapSubject
}) {
  const fetcher = useFetcher()
  const busy = fetcher.state !== 'idle'
  return (
    <>
      {error ? (
        <p className="font-medium" data-testid="error-box">
          {error}
        </p>
      ) : null}
      <p data-testid="over-cap-text">{overCapText(teamName, cap, cost, subject)}</p>
      <p className="pt-1">
        <button
          type="submit"
          form={USE_OWN_CREDITS_FORM_ID}
          onClick={(event) => {
            const form = document.getElementById(USE_OWN_CREDITS_FORM_ID)
            if (!(form instanceof HTMLFormElement)) return
            event.preventDefault()
            fetcher.submit(form)
          }}
          disabled={busy}
          className="inline-flex min-h-11 items-center rounded-lg bg-indigo-600 px-4 font-semibold text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700 disabled:opacity-60"
          data-testid="use-own-credits"
        >
          {busy ? 'Switching...' : USE_OWN_CREDITS}
        </button>
      </p>
    </>
  )
}
