// A job's elapsed time and time left, as GET /api/jobs/<id>/ gives them (issue 34 item 9, decision 167):
// the figures the workspace's progress panel draws for a page opened on the same job, from the same
// code: the expectation as the page loader makes it (run-time.ts estimateMs on this server's measured
// speed) and run-time-left.ts's estimate at the job's stage and percentage, counted from the job's
// creation. The page's countdown smoothing and its words ("About 25 s left") are the page's: the API
// gives the estimate itself, in seconds.
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { readTiming } from './run-rates.server'
import { estimateTimeLeft, runPoint } from './run-time-left'
import { estimateMs, rateVariant } from './run-time'
import type { ToolJobInfo } from './jobs.server'

export interface JobTime {
  /** Seconds since the job was created (the panel's "Elapsed"), while it waits or runs; null once it has ended. */
  elapsedSeconds: number | null
  /** Seconds the work should still take; null when there is no honest estimate (not working yet, a short run, nothing to go on) or the job has ended. */
  estimatedSecondsLeft: number | null
}

type TimedJob = Pick<ToolJobInfo, 'tool' | 'options' | 'status' | 'progress' | 'stage' | 'created_at' | 'input_width' | 'input_height'>

export async function jobTime(job: TimedJob, now: number = Date.now()): Promise<JobTime> {
  if (job.status !== 'queued' && job.status !== 'running') return { elapsedSeconds: null, estimatedSecondsLeft: null }
  const elapsedMs = Math.max(0, now - new Date(job.created_at).getTime())
  const elapsedSeconds = Math.floor(elapsedMs / 1000)
  if (job.status !== 'running' || job.stage === null) return { elapsedSeconds, estimatedSecondsLeft: null }
  const tool = job.tool as ToolSlug
  const point = runPoint(TOOLS[tool].steps, { percent: job.progress, message: job.stage })
  if (point.stage === 'waiting') return { elapsedSeconds, estimatedSecondsLeft: null }
  const expectedMs = await expectedRunMs(job)
  const left = estimateTimeLeft({ ...point, elapsedMs, expectedMs })
  return { elapsedSeconds, estimatedSecondsLeft: left === null ? null : Math.ceil(left.ms / 1000) }
}

/**
 * The run's expected time on this server (run-time.ts's estimate, from its measured speed), or null where
 * the tool is not estimated (the SVG converter: short, with a render limit of its own) or the size is unknown.
 */
export async function expectedRunMs(job: Pick<ToolJobInfo, 'tool' | 'options' | 'input_width' | 'input_height'>): Promise<number | null> {
  const tool = job.tool as ToolSlug
  if (!job.input_width || !job.input_height) return null
  return estimateMs(await readTiming(tool, rateVariant(tool, job.options)), job.input_width, job.input_height)
}
