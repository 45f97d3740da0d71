// Walks the status table's progress steps (spec §4) during a run: the first step follows the real
// upload, the middle steps advance on a timer while the server works, and only the server's answer
// reaches the last step (100).
import type { ProgressStep } from '~/features/tools/catalog'

export interface StagePlan {
  upload: ProgressStep
  waiting: readonly ProgressStep[]
  done: ProgressStep
}

/** How long each middle stage is shown before the next, while the server works. */
export const STAGE_INTERVAL_MS = 1400

export function stagePlan(steps: readonly ProgressStep[], extraWaiting: readonly ProgressStep[] = []): StagePlan {
  if (steps.length < 2) throw new Error('A tool needs at least an upload step and a final step.')
  return { upload: steps[0], waiting: [...steps.slice(1, -1), ...extraWaiting], done: steps[steps.length - 1] }
}

/** The first step, its percentage scaled by how much of the upload has been sent (0..1). */
export function uploadStage(plan: StagePlan, fraction: number): ProgressStep {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
  return { percent: Math.round(f * plan.upload.percent), message: plan.upload.message }
}

/** The stage shown `tick` intervals after the upload finished; it stops at the last middle stage,
 * never at 100, however long the server takes. */
export function waitingStage(plan: StagePlan, tick: number): ProgressStep {
  if (plan.waiting.length === 0) return plan.upload
  const index = Math.min(plan.waiting.length - 1, Math.max(0, Math.floor(tick)))
  return plan.waiting[index]
}
