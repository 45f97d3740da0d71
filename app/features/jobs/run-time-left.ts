// The time left of a running run (client-safe, pure: the progress panel draws it, and the job API can
// give the same figures). Decision 164 (superseding 132's countdown):
// - a run expected to take under SHORT_RUN_MS shows its stage only: a countdown would be over before
//   it is read;
// - the time left comes from the run's measured rate (its work done per second since the work began),
//   with the expectation (run-time.ts estimateMs) counted as PRIOR_SHARE of its own length of observed
//   run, so the first seconds lean on the expectation and the rest on what the run does;
// - every estimate carries its own error, and the countdown shown never goes up by more than that;
// - "Almost done" belongs to the last stage only; an earlier stage with seconds left says so in words.
import type { ProgressStep } from '~/catalog/tools'

/** Runs expected to take less than this (in all) show their stage only. */
export const SHORT_RUN_MS = 5_000
/**
 * The expectation weighs as much as this share of its own length of observed run (a tenth: a run
 * three times slower than expected is known as such within a minute or so, not after half of it).
 */
export const PRIOR_SHARE = 0.1
/** Without an expectation, the rate is trusted once this share of the work is done… */
export const MIN_MEASURED_FRACTION = 0.1
/** …and this much time has passed. */
export const MIN_MEASURED_MS = 1_000
/** An estimate's error: this share of it at the least, plus ERROR_SPAN × the share of the work not yet done… */
const ERROR_FLOOR = 0.1
const ERROR_SPAN = 0.5
/** …and never under a second (the page draws once a second; progress arrives in steps). */
const MIN_ERROR_MS = 1_000
/** How fast the countdown shown moves to a new estimate: half the gap in this time. */
const SMOOTHING_HALF_LIFE_MS = 2_000
/** At or under this, the last stage says "Almost done" (an earlier one "A few seconds left"). */
const ALMOST_DONE_MS = 5_000

/** Where a run is: not working yet (sending its file, waiting in the queue), working, or in the last stage of its work (before its result). */
export type RunStage = 'waiting' | 'working' | 'last'

export interface RunPoint {
  stage: RunStage
  /** The share of the work done (0..1), not counting the upload or the queue. */
  fraction: number
  /** Since the work began (as the page saw it, or the job's creation). */
  elapsedMs: number
  /** What the work was expected to take (run-time.ts estimateMs), or null when the tool is not estimated. */
  expectedMs: number | null
}

export interface TimeLeft {
  ms: number
  /** How far off `ms` may be, either way. */
  errorMs: number
}

/**
 * A tool's progress as the panel or the job API has it (the spec's percentage and stage message, from
 * jobs/progress.ts) → the stage and the share of the work done. The first step is the upload and the
 * last the result; the work runs through the steps between them, from the first step's percentage to
 * the last working step's. Any other message (the upload's, "Waiting in the queue") is no work yet.
 */
export function runPoint(steps: readonly ProgressStep[], progress: ProgressStep): Pick<RunPoint, 'stage' | 'fraction'> {
  const first = steps[0]!
  const working = steps.slice(1, -1)
  const lastWorking = working[working.length - 1]
  if (!lastWorking || !working.some((step) => step.message === progress.message)) return { stage: 'waiting', fraction: 0 }
  const span = Math.max(1, lastWorking.percent - first.percent)
  const fraction = Math.min(1, Math.max(0, (progress.percent - first.percent) / span))
  return { stage: progress.message === lastWorking.message ? 'last' : 'working', fraction }
}

/** The time left of a run at one point, or null when there is none to tell (no work yet, a short run, nothing to go on). */
export function estimateTimeLeft({ stage, fraction, elapsedMs, expectedMs }: RunPoint): TimeLeft | null {
  if (stage === 'waiting') return null
  const done = Math.min(1, Math.max(0, fraction))
  if (done >= 1) return { ms: 0, errorMs: 0 }
  const elapsed = Math.max(0, elapsedMs)
  let rate: number
  if (expectedMs !== null && expectedMs > 0) {
    // The expectation as PRIOR_SHARE × expectedMs of observed run at its own rate, then what was measured.
    rate = (done + PRIOR_SHARE) / (elapsed + PRIOR_SHARE * expectedMs)
  } else {
    if (done < MIN_MEASURED_FRACTION || elapsed < MIN_MEASURED_MS) return null
    rate = done / elapsed
  }
  const ms = (1 - done) / rate
  if (elapsed + ms < SHORT_RUN_MS) return null
  return { ms, errorMs: Math.max(MIN_ERROR_MS, ms * (ERROR_FLOOR + ERROR_SPAN * (1 - done))) }
}

/** The countdown a page shows: the time left at an elapsed time, counting down between estimates. */
export interface Countdown {
  atMs: number
  leftMs: number
  errorMs: number
}

/**
 * The countdown after `shown` (null before the first), at `elapsedMs`, given the estimate there: it
 * counts down with the clock and moves smoothly towards the estimate, never up by more than the
 * estimate's own error. Once shown it keeps counting even if the run turns out short. The same call
 * again at the same time changes nothing (a page may draw twice).
 */
export function nextCountdown(shown: Countdown | null, estimate: TimeLeft | null, elapsedMs: number): Countdown | null {
  if (!shown) return estimate ? { atMs: elapsedMs, leftMs: estimate.ms, errorMs: estimate.errorMs } : null
  const passed = Math.max(0, elapsedMs - shown.atMs)
  const counted = Math.max(0, shown.leftMs - passed)
  if (!estimate) return { atMs: elapsedMs, leftMs: counted, errorMs: shown.errorMs }
  const pull = 1 - 0.5 ** (passed / SMOOTHING_HALF_LIFE_MS)
  const moved = counted + (estimate.ms - counted) * pull
  return { atMs: elapsedMs, leftMs: Math.min(moved, shown.leftMs + estimate.errorMs), errorMs: estimate.errorMs }
}

/** The time left as shown: "About 25 s left", "About 3 min left"; under 5 s "Almost done" in the last stage only. */
export function timeLeftLabel(leftMs: number | null, stage: RunStage): string | null {
  if (leftMs === null) return null
  if (leftMs <= ALMOST_DONE_MS) return stage === 'last' ? 'Almost done' : 'A few seconds left'
  // Under 57.5 s, seconds (5 s steps); from there minutes, so "About 60 s left" is never shown.
  if (leftMs < 57_500) return `About ${Math.max(5, Math.round(leftMs / 5_000) * 5)} s left`
  return `About ${Math.max(1, Math.round(leftMs / 60_000))} min left`
}

/** The same in coarse steps for a live region, so a screen reader speaks about once a minute, not every 5 s. */
export function spokenTimeLeft(leftMs: number | null, stage: RunStage): string | null {
  if (leftMs === null || leftMs >= 60_000 || leftMs <= ALMOST_DONE_MS) return timeLeftLabel(leftMs, stage)
  return 'Less than a minute left'
}

/** What a page keeps between two draws of a run's time left. */
export interface RunWatch {
  /** When the work began (epoch ms): as the page saw it, else the run's start. */
  workStartedAt: number | null
  countdown: Countdown | null
}

export interface RunView {
  steps: readonly ProgressStep[]
  progress: ProgressStep
  /** Epoch ms now, and when the run started (its submission, or the job's creation). */
  now: number
  startedAt: number
  expectedMs: number | null
}

/**
 * One draw of a run's time left: the text shown, the coarser text spoken, and what to keep for the
 * next draw. Drawing twice at the same time gives the same (React may render twice).
 */
export function watchRun(watch: RunWatch | null, view: RunView): { watch: RunWatch; shown: string | null; spoken: string | null } {
  const point = runPoint(view.steps, view.progress)
  let workStartedAt = watch?.workStartedAt ?? null
  // A run first seen working (a page opened on a running job) has worked since it started.
  if (workStartedAt === null && point.stage !== 'waiting') workStartedAt = watch ? view.now : view.startedAt
  if (workStartedAt === null) return { watch: { workStartedAt, countdown: null }, shown: null, spoken: null }
  const elapsedMs = view.now - workStartedAt
  const estimate = estimateTimeLeft({ ...point, elapsedMs, expectedMs: view.expectedMs })
  const countdown = nextCountdown(watch?.countdown ?? null, estimate, elapsedMs)
  const leftMs = countdown?.leftMs ?? null
  return { watch: { workStartedAt, countdown }, shown: timeLeftLabel(leftMs, point.stage), spoken: spokenTimeLeft(leftMs, point.stage) }
}
