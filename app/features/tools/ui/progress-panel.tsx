// The percentage and stage message of a run, announced to screen readers as it changes; while a run
// works, the time it has taken and a countdown of the time left (from the run's measured rate and this
// server's expectation: run-time-left.ts, decision 164), and for a long run the word that the page can
// be left.
import { Link } from '@remix-run/react'
import { useEffect, useRef, useState } from 'react'
import type { ProgressStep } from '~/catalog/tools'
import { HISTORY_LINK } from '~/features/layout/nav'
import { formatDuration, LEAVE_PAGE_AFTER_MS } from '~/features/jobs/run-time'
import { watchRun, type RunWatch } from '~/features/jobs/run-time-left'
import type { RunClock } from './page-result'

export const LEAVE_PAGE_MESSAGE = 'You can leave this page: the result will be in your history.'
export const LEAVE_PAGE_MAIL = 'We will also email you when it is ready.'

export interface ProgressTiming {
  clock: RunClock
  /** The clock to count from on the first render (the server's, so the page hydrates as drawn). */
  renderedAt: number
  /** Signed in: a long run's mail goes to the account's address. */
  signedIn: boolean
  /** The tool's progress steps: which stage the run is in (the upload, its work, its last stage). */
  steps: readonly ProgressStep[]
}

export function ProgressPanel({ progress, failed, timing }: { progress: ProgressStep | null; failed?: boolean; timing?: ProgressTiming | null }) {
  if (!progress) return null
  return (
    <section aria-label="Progress" className="rounded-xl border border-slate-200 bg-slate-50 p-4" data-testid="progress-panel">
      <div className="flex items-center justify-between gap-3 text-sm">
        <p aria-live="polite" className="font-medium text-slate-800" data-testid="progress-message">
          {progress.message}
        </p>
        <span className="tabular-nums text-slate-600" data-testid="progress-percent">
          {progress.percent}%
        </span>
      </div>
      <div
        role="progressbar"
        aria-label={progress.message}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress.percent}
        className="mt-2 h-2 overflow-hidden rounded-full bg-slate-200"
      >
        <div
          className={`h-full rounded-full transition-[width] duration-500 ${failed ? 'bg-red-500' : 'bg-indigo-600'}`}
          style={{ width: `${progress.percent}%` }}
        />
      </div>
      {timing && !failed && progress.percent < 100 ? <RunTime timing={timing} progress={progress} /> : null}
    </section>
  )
}

/** Ticks once a second after hydration; the first render uses the server's clock so both sides agree. */
function useNow(initial: number): number {
  const [now, setNow] = useState(initial)
  useEffect(() => {
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [])
  return now
}

function RunTime({ timing, progress }: { timing: ProgressTiming; progress: ProgressStep }) {
  const now = useNow(timing.renderedAt)
  const elapsed = Math.max(0, now - timing.clock.startedAt)
  // The countdown carries on from draw to draw (a draw repeated at the same time changes nothing).
  const watched = useRef<RunWatch | null>(null)
  const { watch, shown, spoken } = watchRun(watched.current, {
    steps: timing.steps,
    progress,
    now,
    startedAt: timing.clock.startedAt,
    expectedMs: timing.clock.estimateMs,
  })
  watched.current = watch
  const long = (timing.clock.estimateMs ?? 0) > LEAVE_PAGE_AFTER_MS || elapsed > LEAVE_PAGE_AFTER_MS
  return (
    <div className="mt-2 space-y-2 text-sm text-slate-700">
      <p className="flex flex-wrap justify-between gap-x-3">
        {/* The elapsed time changes every second: shown, not spoken. */}
        <span className="tabular-nums" data-testid="progress-elapsed">
          Elapsed {formatDuration(elapsed)}
        </span>
        {/* Shown in 5 s steps, not spoken; the live region beside it speaks about once a minute. */}
        <span className="tabular-nums" data-testid="progress-left">
          {shown ?? ''}
        </span>
        <span aria-live="polite" className="sr-only" data-testid="progress-left-spoken">
          {spoken ?? ''}
        </span>
      </p>
      {long ? (
        <p className="rounded-lg bg-indigo-50 px-3 py-2 text-indigo-950" data-testid="leave-page">
          {LEAVE_PAGE_MESSAGE}{' '}
          <Link to={HISTORY_LINK.to} className="font-semibold underline underline-offset-2">
            Open your history
          </Link>
          {timing.signedIn ? <> {LEAVE_PAGE_MAIL}</> : null}
        </p>
      ) : null}
    </div>
  )
}
