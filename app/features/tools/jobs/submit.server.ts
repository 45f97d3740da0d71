// One tool run from an HTTP request to a job, shared by the spec §7 endpoints (which wait for the
// job), POST /api/jobs/ and the tool pages (which do not). The order keeps bad input and busy
// servers free of charge: caller check → model check → queue depth (advice) → multipart with a byte cap →
// options → checks without a decode (runner.inspect) → idempotency → visitor created → in ONE
// transaction: charge, tool_jobs row (upload sealed), admission under its lock (admission.server.ts),
// pg-boss job. A worker runs it and records the outcome (refund included) once.
import { createHash, randomUUID } from 'node:crypto'
import { config } from '~/config.server'
import { executeTx, getDb } from '~/db/db.server'
import { callerRateKey, resolveCaller, type Caller } from '~/features/account/caller.server'
import { toolCost } from '~/features/tools/costs.server'
import { getBalance } from '~/features/credits/ledger.server'
import { guestShortOfCredits } from '~/features/credits/visitor.server'
import { chargeRun } from '~/features/account/charge.server'
import { clientAddress, consumeRateLimit, retryAtSentence } from '~/features/security/rate-limit.server'
import { TOOLS, type ToolSlug } from '../../../catalog/tools'
import { RunTimeoutError, ToolError, TooSlowError } from '../errors.server'
import { runErrorBody } from '~/http/errors.server'
import { readTiming } from '../run-rates.server'
import { checkFit, isEstimated, rateVariant, tooSlowMessage } from '../run-time'
import { readResult } from '../results.server'
import { resultUrl, TOO_SLOW_CODE } from '../ui/page-result'
import { recordToolRun } from '../runs.server'
import type { Delivered } from '../runners/types'
import {
  asToolError,
  contentDisposition,
  INVALID_TOKEN_MESSAGE,
  missingModel,
  SVG_SIGN_IN_MESSAGE,
  TOOL_RUN_RATE,
} from '../submission.server'
import { parseToolUpload, readImageHeader, requireFile, sniffImageType, toolUploadFrom, type MultipartForm } from '../upload.server'
import { announceJobQueued } from './events.server'
import { creditsCharged, findJobByKey, insertJob, startJob, type ToolJobInfo } from './jobs.server'
import { admitInTransaction, checkRoom } from './admission.server'
import { runnerFor } from '../runners/index.server'
import { recordFailed } from './outcome.server'
import { NotThisJobError, sendToolJob, takeJobHere, toolQueues } from './queue.server'
import { traceJob } from './trace.server'
import { JOB_ID_HEADER, jobAnswerUrl, jobUrl } from './view'
import { waitForJobEnd } from './wait.server'
import { firstProgress } from './progress'
import { inspectForRun } from './test-mode.server'
import { CREDITS_CHARGED_HEADER, isTestKey } from '~/features/api-keys/environments'
import { MODEL_HEADER } from '../models/model-choices'
import { abortLocalRun, reserveSlotHere, startJobWorker } from './worker.server'

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
export const KEY_REUSED_MESSAGE =
  'This Idempotency-Key was used for a different request (another file, tool or options). Send a new key.'

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
   * The run was taken by this process in its admitting transaction (docs/decisions/124): call once,
   * after the wait for its end is set up, to run it here.
   */
  runHere?: () => void
}

function refusal(tool: ToolSlug, error: ToolError, remaining: number | null, headers: Record<string, string>, fieldValues?: Record<string, string>): ToolRefusal {
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

/** An image that cannot finish within the time limit at this server's measured speed: refused before the charge. */
async function checkRunTime(tool: ToolSlug, options: unknown, width: number, height: number): Promise<void> {
  // A tool without a cost model (the SVG converter) always fits: its measured speed is not read.
  if (!isEstimated(tool)) return
  const timing = await readTiming(tool, rateVariant(tool, options))
  const fit = checkFit(timing, width, height)
  if (fit.fits) return
  throw new TooSlowError(tooSlowMessage(fit, width, height, timing.limitMs), {
    estimatedMs: fit.estimateMs,
    limitMs: timing.limitMs,
    largest: fit.largest,
  })
}

/** A second image gets the first one's checks before anything is charged: its real type, its header's pixel limits. */
async function checkSecondFile(bytes: Buffer, tool: ToolSlug): Promise<Buffer> {
  try {
    await sniffImageType(bytes, tool)
    await readImageHeader(bytes)
  } catch (error) {
    // Said of the second file, so the caller knows which of the two was refused.
    if (error instanceof ToolError) throw new ToolError(error.status, `The ${runnerFor(tool).secondFile?.label ?? 'second file'}: ${error.message}`)
    throw error
  }
  return bytes
}

/** The same request (tool, options, file) always gives the same fingerprint. */
export function requestFingerprint(tool: ToolSlug, options: unknown, bytes: Buffer): string {
  const file = createHash('sha256').update(bytes).digest('hex')
  return createHash('sha256').update(`${tool}\0${JSON.stringify(options ?? {})}\0${file}`).digest('hex')
}

function sentIdempotencyKey(request: Request): string | null {
  const sent = request.headers.get('idempotency-key')?.trim()
  if (!sent) return null
  if (sent.length > 200) throw new ToolError(400, 'Idempotency-Key must be at most 200 characters.')
  return sent
}

/**
 * Whose Idempotency-Key it is (decision 081): keys live in the paying account (a team's, when it
 * pays), per environment and per credential, as Stripe scopes them per account and mode. The same
 * key from a test key and then a live key, from two API keys, or from two members of one team, is
 * two requests: each runs (and a live run is charged); a replay never crosses that line.
 */
export function idempotencyScope(caller: Caller, testMode: boolean): string {
  const credential = caller.apiKey ? `key:${caller.apiKey.id}` : caller.userId ? `user:${caller.userId}` : 'visitor'
  return `${testMode ? 'test' : 'live'}:${credential}`
}

/** A repeated Idempotency-Key: the job it named, if it is this same request. */
function checkRepeat(existing: ToolJobInfo, fingerprint: string): void {
  if (existing.request_fingerprint !== fingerprint) throw new ToolError(422, KEY_REUSED_MESSAGE)
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505'
}

/** Parses, checks, charges and enqueues; or finds the job a repeated Idempotency-Key names. */
export async function acceptToolRun(
  request: Request,
  tool: ToolSlug,
  form?: MultipartForm,
  /** A synchronous submission (the caller waits for the answer): run it here when this process can (docs/decisions/124). */
  how: { runHere?: boolean } = {},
): Promise<AcceptedJob | ToolRefusal> {
  const definition = TOOLS[tool]
  const headers: Record<string, string> = {}
  let remaining: number | null = null
  let caller: Caller | null = null
  let fields: Record<string, string> = {}
  // Refusals before the upload is read (sign-in, rate limit, busy, missing model) are not runs and
  // are not recorded, so a flood of them writes nothing; a refused upload is.
  const started = performance.now()
  const jobId = randomUUID()
  traceJob(jobId, 'received', started)
  let uploadBytes: number | null = null
  try {
    const known = await resolveCaller(request, { create: false, run: true })
    if (known.kind === 'invalid-token') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
    if (known.kind === 'team-refused') throw new ToolError(known.status, known.message)
    if (known.kind === 'guest-refused') throw new ToolError(known.status, known.message, { headers: known.headers })
    remaining = known.balance
    if (known.kind === 'caller') caller = known.caller
    if (definition.signInRequired && caller?.source !== 'user') throw new ToolError(401, SVG_SIGN_IN_MESSAGE)

    const limited = await consumeRateLimit(TOOL_RUN_RATE, caller ? callerRateKey(caller) : clientAddress(request))
    if (!limited.ok) {
      throw new ToolError(429, `Too many runs in a short time. ${retryAtSentence(limited.retryAfterSeconds)}`, {
        headers: { 'Retry-After': String(limited.retryAfterSeconds) },
      })
    }
    const key = sentIdempotencyKey(request)
    const missing = missingModel(tool)
    if (missing) throw new ToolError(503, missing.message, { outcome: 'failed' })
    // Advice before the upload is read (a busy studio reads nothing); the locked check decides. Not
    // for a request with an Idempotency-Key: it may be the retry of a run that is delivered or
    // waiting, whose answer must not be a refusal of a new run.
    if (!key) await checkRoom('single', caller?.accountId ?? null)

    const runner = runnerFor(tool)
    uploadBytes = 0
    // POST /api/jobs/ has read the form already (to learn the tool): it is narrowed, not read again.
    const secondField = runner.secondFile?.field
    const upload = form
      ? toolUploadFrom(form, tool, runner.optionFields, secondField)
      : await parseToolUpload(request, tool, runner.optionFields, secondField)
    fields = upload.fields
    const file = requireFile(upload, tool)
    uploadBytes = file.bytes.byteLength
    const second = upload.second ? await checkSecondFile(upload.second.bytes, tool) : null
    const parsed = await runner.parseOptions(upload.fields)
    const options = second && runner.secondFile ? runner.secondFile.attach(parsed, second) : parsed
    const fingerprint = requestFingerprint(tool, options, second ? Buffer.concat([file.bytes, second]) : file.bytes)
    traceJob(jobId, 'parsed')
    const testMode = caller !== null && isTestKey(caller)
    // A test key's run works on the input downscaled to the result cap (checked again after).
    const { bytes, inspected } = await inspectForRun(runner, file.bytes, options, testMode)
    traceJob(jobId, 'inspected')
    // Before the idempotency lookup too: a replayed key names a run that was admitted, so it fitted then.
    if (!key) await checkRunTime(tool, options, inspected.width, inspected.height)

    if (key && caller) {
      const existing = await findJobByKey(caller.accountId, idempotencyScope(caller, testMode), key)
      if (existing) {
        checkRepeat(existing, fingerprint)
        return { ok: true, tool, job: existing, remaining: remaining ?? 0, replayed: true, headers, fieldValues: fields }
      }
    }

    if (!caller) {
      const created = await resolveCaller(request, { run: true })
      if (created.kind === 'guest-refused') throw new ToolError(created.status, created.message, { headers: created.headers })
      if (created.kind !== 'caller') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
      caller = created.caller
      remaining = created.balance
      if (created.setCookie) headers['Set-Cookie'] = created.setCookie
    }

    const cost = toolCost(tool)
    // pg-boss must be up (and this process's worker started) before the transaction: on PGlite its
    // own queries wait for our transaction's lock.
    const boss = await toolQueues()
    await startJobWorker()
    const payer = caller
    let job: ToolJobInfo
    let taken: Awaited<ReturnType<typeof takeJobHere>> = null
    // A slot of this process for running it here, taken before the transaction and given back unless
    // the transaction took the job.
    let slot = how.runHere ? await reserveSlotHere() : null
    const admit = (here: boolean) =>
      executeTx(getDb(), async (trx) => {
        // A test key runs the whole contract but is never charged: no ledger row at all.
        const charged = testMode
          ? { ok: true as const, transactionId: null, balance: remaining ?? (await getBalance(payer.accountId, trx)) }
          : await chargeRun(
          {
            accountId: payer.accountId,
            amount: cost,
            toolSlug: definition.ledgerSlug,
            idempotencyKey: `job:${jobId}`,
            description: definition.name,
            apiKeyId: payer.apiKey?.id ?? null,
            userId: payer.userId,
            teamId: payer.teamId,
          },
          trx,
        )
        traceJob(jobId, 'charged')
        // Short of credits, past a team member's monthly cap, or no longer a member: nothing charged.
        if (!charged.ok && charged.reason === 'insufficient' && payer.source === 'visitor') {
          const short = guestShortOfCredits(cost, charged.balance)
          throw new ToolError(short.status, short.message, { headers: short.headers })
        }
        if (!charged.ok) throw new ToolError(charged.status, charged.message)
        const inserted = await insertJob(
          {
            id: jobId,
            accountId: payer.accountId,
            tool,
            options,
            originalName: file.name,
            bytes,
            secondBytes: second,
            width: inspected.width,
            height: inspected.height,
            notes: inspected.notes,
            idempotencyKey: key,
            idempotencyScope: idempotencyScope(payer, testMode),
            fingerprint,
            chargeTransactionId: charged.transactionId,
            apiKeyId: payer.apiKey?.id ?? null,
            testMode,
            userId: payer.userId,
          },
          trx,
        )
        traceJob(jobId, 'inserted')
        // Past the queue's limit or the account's share: refused, and the charge rolls back with the insert.
        await admitInTransaction(trx, 'single', payer.accountId, 1)
        await sendToolJob(boss, trx, jobId, payer.accountId)
        // Run here: pg-boss hands the job to this process now, in this transaction (its rules hold).
        const attempt = here ? await takeJobHere(boss, trx, jobId) : null
        if (!attempt) return { job: inserted, remaining: charged.balance, attempt }
        return { job: await startJob(jobId, firstProgress(definition.steps), trx), remaining: charged.balance, attempt }
      })
    try {
      let admitted
      try {
        admitted = await admit(slot !== null)
      } catch (error) {
        // Another single run was waiting longer: this one goes through the queue like the rest.
        if (!(error instanceof NotThisJobError)) throw error
        slot?.release()
        slot = null
        admitted = await admit(false)
      }
      ;({ job, remaining, attempt: taken } = admitted)
      if (!taken) slot?.release()
    } catch (error) {
      slot?.release()
      // The same key sent twice at once: one insert wins, the other's charge rolled back with it.
      if (key && isUniqueViolation(error)) {
        const existing = await findJobByKey(payer.accountId, idempotencyScope(payer, testMode), key)
        if (existing) {
          checkRepeat(existing, fingerprint)
          return { ok: true, tool, job: existing, remaining: await getBalance(payer.accountId), replayed: true, headers, fieldValues: fields }
        }
      }
      if (error instanceof ToolError && (error.status === 402 || error.status === 403)) remaining = await getBalance(payer.accountId)
      throw error
    }
    traceJob(jobId, 'committed')
    headers['X-Credits-Remaining'] = String(remaining)
    const accepted: AcceptedJob = { ok: true, tool, job, remaining: remaining!, replayed: false, headers, fieldValues: fields }
    if (slot && taken) {
      const [here, attempt, claimed] = [slot, taken, { job, bytes, secondBytes: second, prepared: inspected.prepared, firstProgressSaved: true }]
      accepted.runHere = () => void here.run(claimed, attempt)
    } else {
      announceJobQueued()
    }
    return accepted
  } catch (thrown) {
    const error = asToolError(thrown, tool)
    if (uploadBytes !== null) {
      await recordToolRun({
        tool,
        accountId: caller?.accountId ?? null,
        apiKeyId: caller?.apiKey?.id ?? null,
        outcome: error.outcome,
        error: error.message,
        durationMs: performance.now() - started,
        inputBytes: uploadBytes || null,
      })
    }
    return refusal(tool, error, remaining, headers, fields)
  }
}

/**
 * The spec §7 endpoints: enqueue, wait for the job (up to TOOL_TIMEOUT_MS), answer like a direct
 * run. A run that is still going at the time limit is stopped, failed and refunded.
 */
export async function runToolSubmission(request: Request, tool: ToolSlug, form?: MultipartForm): Promise<ToolSubmission> {
  const accepted = await acceptToolRun(request, tool, form, { runHere: true })
  if (!accepted.ok) return accepted
  const { job, headers, fieldValues } = accepted
  if (accepted.replayed) {
    if (job.status !== 'succeeded') return refusal(tool, new ToolError(409, REPLAY_UNAVAILABLE), accepted.remaining, headers, fieldValues)
    headers['Idempotent-Replayed'] = 'true'
    return answerFromJob(job, undefined, headers, fieldValues, false)
  }
  const timeoutMs = config().TOOL_TIMEOUT_MS
  const ending = waitForJobEnd(job.id, timeoutMs - (Date.now() - new Date(job.created_at).getTime()), job, accepted.runHere !== undefined)
  accepted.runHere?.()
  let ended = await ending
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
  const balance = ended.job.refunded ? undefined : accepted.remaining
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
    const body = { restored_url: resultUrl(submission.resultId), gfpgan_available: submission.gfpganAvailable ?? false }
    return Response.json(submission.note ? { ...body, note: submission.note } : body, { headers })
  }
  headers.set('Content-Length', String(submission.bytes.byteLength))
  return new Response(new Uint8Array(submission.bytes), { status: 200, headers })
}
