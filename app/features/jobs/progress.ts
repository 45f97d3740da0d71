// A running job's progress on the spec's stage percentages (catalog.ts steps). The first step (the
// upload) is over when a worker starts; the last (100) is reached only when the outcome is recorded.
// In between, the runner's fraction of the work moves the bar, and the message is the step whose
// band the bar is in, or the step the runner names.
import type { ProgressStep } from '~/catalog/tools'

export function progressOnSteps(steps: readonly ProgressStep[], fraction: number, stage?: string): ProgressStep {
  const first = steps[0]!
  const middle = steps.slice(1, -1)
  if (middle.length === 0) return first
  const last = middle[middle.length - 1]!
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
  let percent = first.percent + f * (last.percent - first.percent)
  const named = stage ? middle.findIndex((step) => step.message === stage) : -1
  if (named >= 0) {
    const floor = named === 0 ? first.percent : middle[named - 1]!.percent
    percent = Math.min(middle[named]!.percent, Math.max(floor, percent))
    return { percent: Math.round(percent), message: middle[named]!.message }
  }
  const band = middle.find((step) => step.percent >= percent) ?? last
  return { percent: Math.round(percent), message: band.message }
}

/** Where a run's progress starts (what its worker reports before any work). */
export function firstProgress(steps: readonly ProgressStep[]): ProgressStep {
  return progressOnSteps(steps, 0)
}
