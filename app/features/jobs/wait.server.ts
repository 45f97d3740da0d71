// Waiting for a job's end: at once when this process's worker ran it (an in-process event), else by
// reading tool_jobs every WAIT_POLL_MS (another worker process on the same PostgreSQL). PGlite has a
// single process, so there the event always comes and the read is only a slow safety net. When this
// process shuts down, a wait whose job will not end in time is cut (EndedJob.interrupted).
import { databaseHandle } from '~/db/db.server'
import type { Delivered } from './runner'
import { onJobEnded, onShutdown } from './events.server'
import { findJob, isFinished, type ToolJobInfo } from './jobs.server'

/** How often a wait reads the row when the event is sure to come (a single process, or a run here). */
const SAFETY_NET_POLL_MS = 2_000
const WAIT_POLL_MS = { postgres: 150, pglite: SAFETY_NET_POLL_MS }

export interface EndedJob {
  job: ToolJobInfo
  delivered?: Delivered
  /**
   * The wait was cut because this process is shutting down: `job` has not ended (it went back to
   * the queue, or runs in another process past the drain) and goes on without this request.
   */
  interrupted?: true
}

/**
 * The job once it has ended, or null when `timeoutMs` passes first (0: look once). `known` is the row
 * the caller has just committed (the submitting request): it saves the first read, which on PGlite
 * would queue beside the worker's fetch. The listener is attached in the same tick, and a job
 * cannot end without a fetch, a claim and an outcome in between (each a query); the reads every
 * WAIT_POLL_MS stay the safety net either way.
 */
export async function waitForJobEnd(
  jobId: string,
  timeoutMs: number,
  known?: ToolJobInfo,
  /** The job runs in this process (docs/decisions/124): its end is an event here, as on PGlite. */
  runsHere = false,
): Promise<EndedJob | null> {
  const now = known ?? (await findJob(jobId))
  if (!now) throw new Error(`no job ${jobId}`)
  if (isFinished(now) || timeoutMs <= 0) return isFinished(now) ? { job: now } : null
  return new Promise<EndedJob | null>((resolve) => {
    let settled = false
    let reading = false
    const settle = (value: EndedJob | null) => {
      if (settled) return
      settled = true
      stopListening()
      stopShutdownListener()
      clearInterval(poll)
      clearTimeout(timer)
      resolve(value)
    }
    const read = async (delivered?: Delivered) => {
      const job = await findJob(jobId).catch(() => null)
      if (job && isFinished(job)) settle({ job, delivered })
    }
    const stopListening = onJobEnded(jobId, (ended) => {
      if (ended.job && isFinished(ended.job)) settle({ job: ended.job, delivered: ended.delivered })
      else void read(ended.delivered)
    })
    const poll = setInterval(() => {
      if (reading) return
      reading = true
      void read().finally(() => (reading = false))
    }, runsHere ? SAFETY_NET_POLL_MS : WAIT_POLL_MS[databaseHandle().kind])
    const timer = setTimeout(() => settle(null), timeoutMs)
    // Shutting down: a job handed back (or not started) will not end here, so the request answers
    // now; one running in another process has until the drain's deadline to end.
    let lastSeen = now
    const interrupt = async () => {
      const job = (await findJob(jobId).catch(() => null)) ?? lastSeen
      if (isFinished(job)) settle({ job })
      else settle({ job, interrupted: true })
    }
    const stopShutdownListener = onShutdown((deadline) => {
      void (async () => {
        lastSeen = (await findJob(jobId).catch(() => null)) ?? lastSeen
        if (isFinished(lastSeen)) return settle({ job: lastSeen })
        const left = deadline - performance.now()
        if (lastSeen.status === 'running' && left > 0) setTimeout(() => void interrupt(), left)
        else settle({ job: lastSeen, interrupted: true })
      })()
    })
  })
}
