// The percentage and stage message of a run, announced to screen readers as it changes.
import type { ProgressStep } from '~/catalog/tools'

export function ProgressPanel({ progress, failed }: { progress: ProgressStep | null; failed?: boolean }) {
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
    </section>
  )
}
