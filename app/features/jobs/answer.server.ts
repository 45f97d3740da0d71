// The HTTP answer of a run (spec §7): what the /api endpoints, POST /api/jobs/ and GET .../answer/ send
// for a submission, a refusal or an ended job. Kept apart from the submission itself (submit.server.ts),
// which returns plain values the pages show in their own way.
import { config } from '~/config.server'
import type { ToolSlug } from '~/catalog/tools'
import { getBalance } from '~/features/credits/ledger.server'
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { runErrorBody } from '~/http/errors.server'
import { signedResultUrl } from './result-links.server'
import { readResult } from './results.server'
import { TOO_SLOW_CODE } from './view'
import { RunTimeoutError, ToolError, TooSlowError } from './errors.server'
import type { Delivered } from './runner'
import { contentDisposition } from '~/http/headers'
import { MODEL_HEADER } from './view'
import { creditsCharged, type ToolJobInfo } from './jobs.server'
import { recordFailed, type ChargeAtOutcome } from './outcome.server'
import { runnerFor } from './runners.server'
import { traceJob } from './trace.server'
import { JOB_ID_HEADER, jobAnswerUrl, jobUrl } from './view'
import { waitForJobEnd } from './wait.server'
import { abortLocalRun } from './worker.server'

export const REPLAY_UNAVAILABLE =
  'A request with this Idempotency-Key is still running or did not deliver a result. Send a new key to run the tool again.'
/** The synchronous answer when this process shut down before the run ended (the run goes on). */
export function handedBackMessage(jobId: string): string {
  return (
    `The studio restarted before your run ended. The run goes on and is charged once (refunded if it fails): ` +
    `do not send it again. Follow it at ${jobUrl(jobId)} and get its answer at ${jobAnswerUrl(jobId)} once it has ended.`
  )
}
/** When a client whose wait was cut by a restart should look at the job. */
export const HANDED_BACK_RETRY_SECONDS = 10

export type ToolSubmission =
  | {
      ok: true
      tool: ToolSlug
      bytes: Buffer
      contentType: string
      filename: string
      remaining: number
      facesFound?: number
      gfpganAvailable?: boolean
      /** X-Facet-Note: what the caller should know (the restorer's engine, a first frame used). */
      note?: string
      resultId?: string
      jobId: string
      headers: Record<string, string>
      /** The option fields as sent (blur, format, scale, background), for a page to show what it used. */
      fieldValues?: Record<string, string>
    }
  | ToolRefusal

export interface ToolRefusal {
  ok: false
  tool: ToolSlug
  status: number
  error: string
  remaining: number | null
  gfpganAvailable?: boolean
  headers: Record<string, string>
  fieldValues?: Record<string, string>
  /** A run that goes on without this request (it was handed back at shutdown): where to follow it. */
  job?: { id: string; url: string; answerUrl: string }
  /** An image too large to finish in time: the estimate, the limit and the largest size that fits (null: none now). */
  tooSlow?: TooSlowError['timing']
}

/** A job accepted (or, for a repeated Idempotency-Key, found): what POST /api/jobs/ answers. */
export interface AcceptedJob {
  ok: true
  tool: ToolSlug
  job: ToolJobInfo
  remaining: number
  /** True when the Idempotency-Key named a job that already existed. */
  replayed: boolean
  headers: Record<string, string>
  fieldValues: Record<string, string>
  /**
   * The run was taken by this process in its admitting transaction (docs/decisions/124), or admitted
   * inline (176): call once, after the wait for its end is set up, to run it here. Settles when the
   * run has ended here (its outcome recorded) or was handed back.
   */
  runHere?: () => Promise<void>
  /** An inline run (docs/decisions/176): its charge, taken by the outcome, and the balance it left. */
  inline?: ChargeAtOutcome
}

export function refusal(tool: ToolSlug, error: ToolError, remaining: number | null, headers: Record<string, string>, fieldValues?: Record<string, string>): ToolRefusal {
  Object.assign(headers, error.headers)
  // A refusal keeps nothing: either nothing was charged or the charge was refunded.
  headers[CREDITS_CHARGED_HEADER] = '0'
  if (remaining !== null) headers['X-Credits-Remaining'] = String(remaining)
  return {
    ok: false,
    tool,
    status: error.status,
    error: error.message,
    remaining,
    gfpganAvailable: runnerFor(tool).engine?.().gfpganAvailable,
    headers,
    fieldValues,
    ...(error instanceof TooSlowError ? { tooSlow: error.timing } : {}),
  }
}

/**
 * A synchronous submission accepted at the door: wait for its job (up to TOOL_TIMEOUT_MS), run it here
 * when the door took it for this process, and answer like a direct run. A run still going at the time
 * limit is stopped, failed and refunded. `admittedFrom` is performance.now() when the request reached the door:
 * the wait is measured on this process's monotonic clock, not against the row's created_at (the database's
 * clock), so a wall clock that steps or differs from the database's cannot stop a run at once (decision 177).
 */
export async function answerWhenEnded(accepted: AcceptedJob, admittedFrom: number): Promise<ToolSubmission> {
  const tool = accepted.tool
  const { job, headers, fieldValues } = accepted
  if (accepted.replayed) {
    if (job.status !== 'succeeded') return refusal(tool, new ToolError(409, REPLAY_UNAVAILABLE), accepted.remaining, headers, fieldValues)
    headers['Idempotent-Replayed'] = 'true'
    return answerFromJob(job, undefined, headers, fieldValues, false)
  }
  const timeoutMs = config().TOOL_TIMEOUT_MS
  const ending = waitForJobEnd(job.id, timeoutMs - (performance.now() - admittedFrom), job, accepted.runHere !== undefined)
  const ran = accepted.runHere?.()
  let ended = await ending
  // An inline run does not go on without this request: at shutdown it ends here (failed, unpaid, past the grace).
  if (ended?.interrupted && accepted.inline && ran) {
    await ran
    ended = (await waitForJobEnd(job.id, 0)) ?? ended
  }
  if (ended?.interrupted) return handedBack(ended.job, headers, fieldValues)
  if (!ended) {
    const stopped = await recordFailed(job, { status: 503, message: new RunTimeoutError(timeoutMs).message }, timeoutMs)
    if (stopped) abortLocalRun(job.id)
    ended = await waitForJobEnd(job.id, 0)
    if (!ended) throw new Error(`job ${job.id} neither ended nor stopped`)
  }
  traceJob(job.id, 'woke')
  // Not refunded, the balance is what this run's charge left (its admitting transaction returned it):
  // no read. A refund changed it since, so that answer reads it.
  // An inline run's balance is the one its outcome's charge left (a test key's: the one read at the door).
  const balance = ended.job.refunded ? undefined : accepted.inline ? (accepted.inline.run ? accepted.inline.balance : accepted.remaining) : accepted.remaining
  const answer = await answerFromJob(ended.job, ended.delivered, headers, fieldValues, true, balance)
  traceJob(job.id, 'answered')
  return answer
}

/**
 * This process shut down before the job ended: 503 with Retry-After, the job's URL in Location and
 * in the body (job_id, job_url, answer_url). The charge stands, as for any job still going.
 */
async function handedBack(job: ToolJobInfo, headers: Record<string, string>, fieldValues?: Record<string, string>): Promise<ToolRefusal> {
  const tool = job.tool as ToolSlug
  const error = new ToolError(503, handedBackMessage(job.id), {
    outcome: 'failed',
    headers: { 'Retry-After': String(HANDED_BACK_RETRY_SECONDS), Location: jobUrl(job.id) },
  })
  const answer = refusal(tool, error, await getBalance(job.account_id).catch(() => null), headers, fieldValues)
  answer.headers[CREDITS_CHARGED_HEADER] = String(creditsCharged(job))
  answer.job = { id: job.id, url: jobUrl(job.id), answerUrl: jobAnswerUrl(job.id) }
  return answer
}

/** An ended job as the endpoint's answer (its bytes from the local worker, else from the results store). */
export async function answerFromJob(
  job: ToolJobInfo,
  delivered: Delivered | undefined,
  headers: Record<string, string>,
  fieldValues?: Record<string, string>,
  /** False for a replay or a later read of the answer: that request took nothing. */
  tookCredits = false,
  /** The account's balance when the caller has it (X-Credits-Remaining), else it is read. */
  balance?: number,
): Promise<ToolSubmission> {
  const tool = job.tool as ToolSlug
  const remaining = balance ?? (await getBalance(job.account_id))
  headers['X-Credits-Remaining'] = String(remaining)
  if (job.status === 'failed') {
    const timedOut = job.error_status === 503
    const error = new ToolError(job.error_status ?? 500, job.error ?? 'The run failed.', {
      headers: timedOut ? { 'Retry-After': '30' } : {},
    })
    return refusal(tool, error, remaining, headers, fieldValues)
  }
  const stored = delivered ? null : job.result_id ? await readResult(job.result_id, job.account_id) : null
  const bytes = delivered?.bytes ?? stored?.bytes
  const contentType = delivered?.contentType ?? stored?.contentType
  if (!bytes || !contentType || !job.filename) {
    return refusal(tool, new ToolError(410, 'This result is no longer available: results are kept for 24 hours.'), remaining, headers, fieldValues)
  }
  headers['Content-Type'] = contentType
  headers['Content-Disposition'] = contentDisposition(job.filename)
  headers[CREDITS_CHARGED_HEADER] = String(tookCredits ? creditsCharged(job) : 0)
  headers[JOB_ID_HEADER] = job.id
  if (job.note) headers['X-Facet-Note'] = job.note
  if (job.model) headers[MODEL_HEADER] = job.model
  if (job.faces_found !== null) headers['X-Faces-Found'] = String(job.faces_found)
  return {
    ok: true,
    tool,
    bytes,
    contentType,
    filename: job.filename,
    remaining,
    facesFound: job.faces_found ?? undefined,
    gfpganAvailable: job.gfpgan_available ?? undefined,
    note: job.note ?? undefined,
    resultId: job.result_id ?? undefined,
    jobId: job.id,
    headers,
    fieldValues,
  }
}

/** The API's machine-readable side of a too-slow refusal (POST /api/jobs/ sends the same). */
export function tooSlowFields(timing: NonNullable<ToolRefusal['tooSlow']>): Record<string, unknown> {
  return {
    code: TOO_SLOW_CODE,
    estimated_seconds: Math.ceil(timing.estimatedMs / 1000),
    time_limit_seconds: Math.round(timing.limitMs / 1000),
    largest_size: timing.largest,
  }
}

/** The /api answer of spec §7: the image (or the restorer's JSON), or JSON {error, remaining}. */
export function submissionResponse(submission: ToolSubmission): Response {
  const runner = runnerFor(submission.tool)
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  for (const [name, value] of Object.entries(submission.headers)) headers.set(name, value)
  if (!submission.ok) {
    headers.delete('Content-Disposition')
    headers.delete('Content-Type')
    const body: Record<string, unknown> = runErrorBody(submission.error, submission.remaining)
    if (runner.engine) body.gfpgan_available = submission.gfpganAvailable ?? false
    if (submission.job) Object.assign(body, { job_id: submission.job.id, job_url: submission.job.url, answer_url: submission.job.answerUrl })
    if (submission.tooSlow) Object.assign(body, tooSlowFields(submission.tooSlow))
    return Response.json(body, { status: submission.status, headers })
  }
  if (runner.answer === 'link' && submission.resultId) {
    headers.delete('Content-Disposition')
    headers.set('Content-Type', 'application/json')
    // The note (which engine ran) rides in the body too, for clients that read only the JSON.
    // A signed link (decision 174): it opens for the script that ran, whatever credentials it holds.
    // filename: the stored result's name, whose extension says its type (decision 173).
    const body = { restored_url: signedResultUrl(submission.resultId), gfpgan_available: submission.gfpganAvailable ?? false, filename: submission.filename }
    return Response.json(submission.note ? { ...body, note: submission.note } : body, { headers })
  }
  headers.set('Content-Length', String(submission.bytes.byteLength))
  return new Response(new Uint8Array(submission.bytes), { status: 200, headers })
}
