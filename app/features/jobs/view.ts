// A tool job as the screens see it (client-safe). The API's GET /api/jobs/<id>/ answers the same
// facts in snake_case; the tool page's loader hands this to the screen for ?job=<id>.
import type { ToolSlug } from '~/catalog/tools'

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface JobView {
  id: string
  tool: ToolSlug
  status: JobStatus
  /** 0..100, from the work itself, on the spec's stage percentages. */
  progress: number
  /** The stage message (one of the tool's steps in catalog.ts), or null while queued. */
  stage: string | null
  /** Where the result can be fetched by its owner (24 hours), once succeeded. */
  resultUrl: string | null
  /** The download's file name, once succeeded. */
  filename: string | null
  /** What went wrong, once failed (the message to show). */
  error: string | null
  /** The payer's balance now. */
  remaining: number | null
  /** True when the run's charge was given back (failed, or no face found). */
  refunded: boolean
  /** The face tools: how many faces were found (0: nothing changed, not charged). */
  facesFound: number | null
  /** X-Facet-Note: something the caller should know (first frame used, a model replaced). */
  note: string | null
  /** Waiting again after a run was started: the studio restarted (or a worker stopped) and the run goes on. */
  handedBack: boolean
}

/** What a page following a handed-back job says (the page links to itself: the run's own address). */
export const HANDED_BACK_NOTE = 'The studio restarted while your image was being processed. The run goes on and is charged once; this page follows it:'

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed']

/** Whether a job in this status has ended: its answer can be asked for, and nothing about it changes again. */
export function jobHasEnded(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status)
}

/** A tool endpoint's answer names its job, so its caller can follow or correct it (POST /api/jobs/<id>/corrections/). */
export const JOB_ID_HEADER = 'X-Facet-Job-Id'

/** GET /api/jobs/<id>/: the job for its owner. */
export function jobUrl(id: string): string {
  return `/api/jobs/${id}/`
}

/** GET /api/jobs/<id>/answer/: an ended job's answer, as the tool's endpoint gives it. */
export function jobAnswerUrl(id: string): string {
  return `${jobUrl(id)}answer/`
}

/** Where its owner fetches a stored result (24 hours): GET /api/results/<id>. */
export function resultUrl(resultId: string): string {
  return `/api/results/${encodeURIComponent(resultId)}`
}

/** The machine-readable code of a refusal of an image too large to finish in time (run-time.ts). */
export const TOO_SLOW_CODE = 'image_too_slow'

/** The answer's header naming the model that made the result. */
export const MODEL_HEADER = 'X-Facet-Model'

/** The longest `Prefer: wait=N` a POST /api/jobs/ honours, in seconds (a longer one is taken as this; decision 184). */
export const MAX_PREFER_WAIT_SECONDS = 10
