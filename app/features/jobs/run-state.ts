// What a run (a job, or a batch's item) came to, in one place for every screen and answer that says
// it: history, the batch screen, GET /api/batches/<id>/ and the batch zip's manifest.json and
// errors.json. Client-safe. A face tool's run that found no face delivered its image unchanged and
// was refunded: it is "no_face", never "done" (the job's status is still `succeeded`).
import type { JobStatus } from './view'

export type RunState = 'waiting' | 'running' | 'done' | 'no_face' | 'failed'

export const NO_FACE_NOT_CHARGED = 'No face found (not charged)'
export const RUN_FAILED = 'The run failed.'

export function runState(job: { status: JobStatus; outcome: 'success' | 'failed' | 'no_face' | null }): RunState {
  if (job.status === 'queued') return 'waiting'
  if (job.status === 'running') return 'running'
  if (job.status === 'failed') return 'failed'
  return job.outcome === 'no_face' ? 'no_face' : 'done'
}

/** The state in words: "Waiting", "Running: 40%", "Done", "No face found (not charged)", "Failed: …". */
export function runStateText(state: RunState, job: { progress: number; error: string | null }): string {
  switch (state) {
    case 'waiting':
      return 'Waiting'
    case 'running':
      return `Running: ${job.progress}%`
    case 'done':
      return 'Done'
    case 'no_face':
      return NO_FACE_NOT_CHARGED
    case 'failed':
      return `Failed: ${job.error ?? RUN_FAILED}`
  }
}

export function isUnderway(state: RunState): boolean {
  return state === 'waiting' || state === 'running'
}
