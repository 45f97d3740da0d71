// "This result is wrong" (issue 36 item 4, decision 175): the words, limits and addresses the report
// form, the API, the MCP tool and the console share, and the shape of an exported case (case.json),
// which the quality bench reads (bench/quality-feedback.ts). Client-safe: no server imports.
import { RESULT_KEPT_HOURS } from '~/catalog/retention'

export const REPORT_WORDS = 'This result is wrong'
export const REPORT_SENT_WORDS = 'Reported. Thank you.'
export const REPORT_UPDATED_WORDS = 'Your report was updated. Thank you.'
/** What the form says before it is sent: what is kept, where, and for how long (the privacy page says the same). */
export const REPORT_HINT = `The result, the image it was made from, your corrections and your note stay encrypted on this studio, for its operator to test the models against, and are deleted with the result ${RESULT_KEPT_HOURS} hours after the run.`
export const NOTE_LABEL = 'What is wrong? (optional)'

/** A note is a sentence or two, not a document. */
export const NOTE_MAX_CHARS = 1000
export const NOTE_TOO_LONG_MESSAGE = `The note is longer than ${NOTE_MAX_CHARS} characters.`
export const REPORT_NOT_FOUND_MESSAGE = 'No such job.'
export const REPORT_NOT_DELIVERED_MESSAGE = 'This job did not deliver a result, so there is nothing to report.'
export const REPORT_EXPIRED_MESSAGE = `This result has expired (results are kept ${RESULT_KEPT_HOURS} hours), so it can no longer be reported.`

/** The form's fields. */
export const FEEDBACK_FIELD = { note: 'note', back: 'back' } as const

/** Where the report form posts (a page: works without JavaScript). */
export function reportPath(jobId: string): string {
  return `/feedback/${jobId}`
}

/** The API's address of a job's report. */
export function feedbackApiPath(jobId: string): string {
  return `/api/jobs/${jobId}/feedback/`
}

/** The operator console's list of reports, and its exports. */
export const FEEDBACK_CONSOLE_PATH = '/console/feedback'
export const EXPORT_ALL_PATH = `${FEEDBACK_CONSOLE_PATH}/export`

export function caseExportPath(jobId: string): string {
  return `${FEEDBACK_CONSOLE_PATH}/${jobId}/export`
}

export function caseThumbnailPath(jobId: string, which: string): string {
  return `${FEEDBACK_CONSOLE_PATH}/${jobId}/thumbnail/${which}`
}

/** An exported case's files (one folder per report). */
export const CASE_FILES = {
  json: 'case.json',
  /** The studio's output as delivered (its own extension follows). */
  outputStem: 'output',
  inputStem: 'input',
  /** Cutouts: the matte the run delivered, before any correction (greyscale PNG, the photo's size). */
  studioMatte: 'studio-matte.png',
  /** Cutouts the user corrected: the corrected matte, the expected answer (greyscale PNG, the photo's size). */
  expectedMatte: 'expected-matte.png',
} as const

/** case.json: what the bench and a person need to read a case. */
export interface FeedbackCaseJson {
  format: 'facet-feedback-case/1'
  job_id: string
  tool: string
  /** The run's options as the tool parsed them. */
  options: unknown
  /** The model that made the result, when the tool has a choice of models. */
  model: string | null
  note: string | null
  reported_at: string
  expires_at: string
  /** The photo's size (the mattes' size); null when unknown. */
  width: number | null
  height: number | null
  /** File names inside the case's folder; null when the case has none. */
  input: string | null
  output: string
  studio_matte: string | null
  expected_matte: string | null
  /** True when the output was already corrected by the user when it was reported. */
  output_corrected: boolean
  /** Face blur, corrected: the boxes the user wanted blurred (the result's pixels). */
  expected_faces: { x: number; y: number; width: number; height: number }[] | null
}
