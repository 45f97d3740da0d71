// One tool run from an HTTP request to a job, shared by the spec §7 endpoints (which wait for the
// job), POST /api/jobs/ and the tool pages (which do not). The order keeps bad input and busy
// servers free of charge: caller check → model check → queue depth (advice) → multipart with a byte cap →
// options → checks without a decode (runner.inspect) → idempotency → visitor created → the job
// platform's door (door.server.ts), which in ONE transaction writes the charge, the tool_jobs row
// (upload sealed), the admission under its lock and the pg-boss job. A worker runs it and records the outcome (refund included) once. A synchronous run
// expected to be short runs inline instead (docs/decisions/176): its row is inserted running, with no
// charge and no pg-boss job, and the outcome's transaction charges it.
import { randomUUID } from 'node:crypto'
import { callerRateKey, createVisitorCaller, resolveCaller, type Caller } from '~/features/account/caller.server'
import { toolCost } from '~/features/tools/costs.server'
import { getBalance } from '~/features/credits/ledger.server'
import { clientAddress, consumeRateLimit, retryAtSentence } from '~/features/security/rate-limit.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { ToolError, TooSlowError } from '~/features/jobs/errors.server'
import { readTiming } from '~/features/jobs/run-rates.server'
import { checkFit, isEstimated, rateVariant, tooSlowMessage } from '~/features/jobs/run-time'
import { recordToolRun } from '~/features/jobs/runs.server'
import { asToolError, INVALID_TOKEN_MESSAGE, missingModel, SVG_SIGN_IN_MESSAGE, TOOL_RUN_RATE } from '~/features/tools/submission.server'
import { parseToolUpload, readImageHeader, requireFile, sniffImageType, toolUploadFrom, type MultipartForm } from '~/features/tools/upload.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { isTestKey } from '~/features/api-keys/environments'
import { checkRoom, admitSingleRun, findRepeat, idempotencyScope, requestFingerprint } from '~/features/jobs/door.server'
import { answerWhenEnded, refusal, type AcceptedJob, type ToolRefusal, type ToolSubmission } from '~/features/jobs/answer.server'
import { traceJob } from '~/features/jobs/trace.server'
import { inspectForRun } from '~/features/tools/test-mode.server'

/**
 * The run's expected time (null: not estimated); with `refuse`, an image that cannot finish within the
 * time limit at this server's measured speed is refused here, before the charge.
 */
async function checkRunTime(tool: ToolSlug, options: unknown, width: number, height: number, refuse: boolean): Promise<number | null> {
  // A tool without a cost model (the SVG converter) always fits: its measured speed is not read.
  if (!isEstimated(tool)) return null
  const timing = await readTiming(tool, rateVariant(tool, options))
  const fit = checkFit(timing, width, height)
  if (fit.fits || !refuse) return fit.estimateMs
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

function sentIdempotencyKey(request: Request): string | null {
  const sent = request.headers.get('idempotency-key')?.trim()
  if (!sent) return null
  if (sent.length > 200) throw new ToolError(400, 'Idempotency-Key must be at most 200 characters.')
  return sent
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
  let admitting = false
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
    // Refused before the idempotency lookup too: a replayed key names a run that was admitted, so it
    // fitted then. The estimate is needed only to choose the inline path.
    const expectedMs = !key || how.runHere ? await checkRunTime(tool, options, inspected.width, inspected.height, !key) : null

    if (key && caller) {
      const existing = await findRepeat(caller, testMode, key, fingerprint)
      if (existing) return { ok: true, tool, job: existing, remaining: remaining ?? 0, replayed: true, headers, fieldValues: fields }
    }

    if (!caller) {
      // A browser without a visitor yet: made only now that its upload is accepted (known is a guest preview,
      // the request already resolved and a guest's run allowed above).
      if (known.kind !== 'guest-preview') throw new Error(`a run without a caller resolved as ${known.kind}`)
      const created = await createVisitorCaller(known.visitorAddress)
      caller = created.caller
      remaining = created.balance
      if (created.setCookie) headers['Set-Cookie'] = created.setCookie
    }

    admitting = true
    const admitted = await admitSingleRun({
      payer: caller,
      cost: toolCost(tool),
      testMode,
      balance: remaining,
      job: {
        id: jobId,
        accountId: caller.accountId,
        tool,
        options,
        originalName: file.name,
        bytes,
        secondBytes: second,
        width: inspected.width,
        height: inspected.height,
        notes: inspected.notes,
        idempotencyKey: key,
        idempotencyScope: idempotencyScope(caller, testMode),
        fingerprint,
        apiKeyId: caller.apiKey?.id ?? null,
        testMode,
        userId: caller.userId,
      },
      inspected,
      runHere: how.runHere === true,
      expectedMs,
    })
    if (!admitted.replayed) headers['X-Credits-Remaining'] = String(admitted.remaining)
    return { ok: true, tool, headers, fieldValues: fields, ...admitted }
  } catch (thrown) {
    // Refused at the door (short of credits, a cap, no longer a member): the answer says the balance now.
    if (admitting && caller && thrown instanceof ToolError && (thrown.status === 402 || thrown.status === 403)) remaining = await getBalance(caller.accountId)
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
  const admittedFrom = performance.now()
  const accepted = await acceptToolRun(request, tool, form, { runHere: true })
  if (!accepted.ok) return accepted
  return answerWhenEnded(accepted, admittedFrom)
}
