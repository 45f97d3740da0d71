// The status table's progress steps (spec §4) in the browser: the first step follows the real upload,
// the middle steps come from the job's real progress (jobs/progress.ts on the worker), and only the
// job's answer reaches the last step (100).
import type { ProgressStep } from '~/catalog/tools'

export interface StagePlan {
  upload: ProgressStep
  done: ProgressStep
}

export function stagePlan(steps: readonly ProgressStep[]): StagePlan {
  if (steps.length < 2) throw new Error('A tool needs at least an upload step and a final step.')
  return { upload: steps[0], done: steps[steps.length - 1] }
}

/** The first step, its percentage scaled by how much of the upload has been sent (0..1). */
export function uploadStage(plan: StagePlan, fraction: number): ProgressStep {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
  return { percent: Math.round(f * plan.upload.percent), message: plan.upload.message }
}
