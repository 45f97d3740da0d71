// Where a queued run's time goes: each stage of a job's path (submit, pick-up, claim, run, outcome,
// wake-up, answer) publishes a mark on a diagnostics channel. Nothing is kept and nothing is
// computed unless someone subscribes (the benchmark, bench/jobs.ts), so the marks cost a boolean
// check in production.
import { channel } from 'node:diagnostics_channel'

export const JOB_TRACE_CHANNEL = 'facet:tool-job-trace'

/** The marks in the order a job passes them (a stage is the time from the previous mark to its own). */
export const JOB_MARKS = [
  /** acceptToolRun began (caller, rate limit, queue depth). */
  'received',
  /** Multipart read, options parsed, fingerprint taken. */
  'parsed',
  /** Checks without a decode (type, pixel limits). */
  'inspected',
  /** In the submit transaction: the charge written. */
  'charged',
  /** In the submit transaction: the row with the sealed upload inserted. */
  'inserted',
  /** The pg-boss job sent and the transaction committed. */
  'committed',
  /** A worker of this or another process has the job in hand (pg-boss fetch). */
  'fetched',
  /** tool_jobs says running; the upload is in memory. */
  'claimed',
  /** The runner returned the output. */
  'ran',
  /** In the outcome transaction: the job ended and the result stored (sealed). */
  'stored',
  /** The outcome transaction (tool_runs, webhooks) committed. */
  'recorded',
  /** The waiting request knows the job ended. */
  'woke',
  /** The answer (headers, bytes) is ready to send. */
  'answered',
] as const

export type JobMark = (typeof JOB_MARKS)[number]

export interface JobTraceMark {
  jobId: string
  mark: JobMark
  /** performance.now() of this process. */
  at: number
}

const marks = channel(JOB_TRACE_CHANNEL)

/** Publishes `mark` for the job, stamped now (or at `at`, a performance.now() taken earlier). */
export function traceJob(jobId: string, mark: JobMark, at?: number): void {
  if (marks.hasSubscribers) marks.publish({ jobId, mark, at: at ?? performance.now() } satisfies JobTraceMark)
}
