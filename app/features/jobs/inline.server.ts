// Short runs inline (docs/decisions/176): a synchronous run expected to finish within INLINE_RUN_MS
// runs in the request's process with no pg-boss job, and its outcome's transaction charges it. What
// the queue kept for it is then kept by its row alone: a process that dies mid-run leaves the row
// running, unpaid, with no pg-boss job. Nothing else can end it, so every process that runs jobs
// sweeps: a single run still running, silent past the time limit (its own process would have
// stopped it by then) and without a pg-boss job, is failed once, with nothing to refund.
import { config } from '~/config.server'
import { logger } from '~/utils/logger.server'
import { announceJobEnded } from './events.server'
import { findSilentRuns } from './jobs.server'
import { recordFailed } from './outcome.server'
import { runPath } from './run-path.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'

/** The message of an inline run lost with its process. */
export const INLINE_LOST_MESSAGE = 'The run was interrupted before it ended. Nothing was charged; please send it again.'
/** Past the time limit, the room a live process has to write the run's outcome (a timeout's included). */
const OUTCOME_ROOM_MS = 10_000
/** How often a process that runs jobs sweeps for lost inline runs. */
export const SWEEP_EVERY_MS = 30_000

/** Whether a run expected to take `expectedMs` runs inline (null: not estimated, the SVG converter: always short). */
export function runsInline(expectedMs: number | null): boolean {
  const threshold = config().INLINE_RUN_MS
  return threshold > 0 && (expectedMs === null || expectedMs < threshold)
}

/** How long an inline run's row may stay silent before it is taken for lost. */
export function lostAfterMs(): number {
  return config().TOOL_TIMEOUT_MS + OUTCOME_ROOM_MS
}

/**
 * Fails every inline run lost with its process: running, silent for `silentMs`, and with no pg-boss
 * job (a queued run's job is its net: pg-boss retries it). Recorded like any failure (once, its
 * job-end events heard), with no refund because an inline run is charged only when it delivers.
 * Answers how many it ended.
 */
export async function sweepLostInlineRuns(silentMs = lostAfterMs()): Promise<number> {
  const silent = await findSilentRuns(silentMs)
  if (silent.length === 0) return 0
  const boss = await toolQueues()
  let ended = 0
  for (const job of silent) {
    // This process's own live inline run is never lost, however silent it looks: on PGlite the database's
    // clock is this process's, so a wall clock stepped forward made every live run look silent (decision 177).
    if (runPath(job.id) === 'inline') continue
    const [queued] = await boss.findJobs(TOOL_JOB_QUEUE, { id: job.id })
    if (queued) continue
    const failed = await recordFailed(job, { status: 503, message: INLINE_LOST_MESSAGE }, null, 'inline')
    if (!failed) continue
    ended++
    logger.warn({ jobId: job.id }, 'inline run lost with its process: failed, nothing charged')
    announceJobEnded({ jobId: job.id, job: failed })
  }
  return ended
}
