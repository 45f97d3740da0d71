// One tool run from an HTTP request to an answer, shared by the /api routes and the tool pages'
// actions (the no-JavaScript path). The tool's runner (runners/) owns its options, checks, run and
// naming; this file only orders the steps so bad input and busy servers stay free of charge:
// caller check → model check → multipart with a byte cap → options → inspect (type from the bytes,
// header pixel limit) → visitor created → in the queue: decode, charge, run → refund on failure
// or no face → store (optionally) → record the run.
import { createHash, randomUUID } from 'node:crypto'
import { resolveCaller, type Caller } from '~/features/credits/caller.server'
import { toolCost } from '~/features/credits/costs.server'
import { charge, refund } from '~/features/credits/ledger.server'
import { clientAddress, consumeRateLimit } from '~/features/security/rate-limit.server'
import { logger } from '~/utils/logger.server'
import { TOOLS, type ToolSlug } from './catalog'
import { ToolError, type RunOutcome } from './errors.server'
import { modelEntry } from './models/manifest'
import { isModelInstalled, ModelMissingError, requiredModelsFor } from './models/registry.server'
import { QueueFullError, RunTimeoutError, toolQueue } from './queue.server'
import { readResult, storeResult, type RunDetails } from './results.server'
import { runnerFor } from './runners/index.server'
import type { Inspected } from './runners/types'
import { recordToolRun } from './runs.server'
import { parseToolUpload, requireFile } from './upload.server'
import { resultUrl } from './ui/page-result'
import { SVG_SIGN_IN_MESSAGE, TOOL_MESSAGES } from './ui/tool-messages'

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
      headers: Record<string, string>
      /** The option fields as sent (blur, format, scale, background), for a page to show what it used. */
      fieldValues?: Record<string, string>
    }
  | {
      ok: false
      tool: ToolSlug
      status: number
      error: string
      remaining: number | null
      gfpganAvailable?: boolean
      headers: Record<string, string>
      fieldValues?: Record<string, string>
    }

// One wording for the page and the API (the tests import it from here).
export { SVG_SIGN_IN_MESSAGE }
export const INVALID_TOKEN_MESSAGE = 'Your session has ended or the token is not valid. Sign in again.'

/** Generous for a person, tight for a script: the queue bounds the CPU, this bounds one client. */
export const TOOL_RUN_RATE = { name: 'tool-runs', points: 120, durationSeconds: 60 }

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266). */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

function missingModel(tool: ToolSlug): ModelMissingError | null {
  for (const id of requiredModelsFor(tool)) {
    if (!isModelInstalled(id)) return new ModelMissingError(id, modelEntry(id).file)
  }
  return null
}

/** Idempotency-Key as sent (scoped to the tool), else a fresh key: every run is charged once. */
function idempotencyKey(request: Request, tool: ToolSlug): { key: string; sent: boolean } {
  const sent = request.headers.get('idempotency-key')?.trim()
  if (sent) {
    if (sent.length > 200) throw new ToolError(400, 'Idempotency-Key must be at most 200 characters.')
    return { key: `${tool}:${sent}`, sent: true }
  }
  return { key: `${tool}:${randomUUID()}`, sent: false }
}

/**
 * Where the output of an idempotent run is kept: an id derived from the account and the key, so a
 * retry finds it without any index of its own. Only the same account can read it (results are owned).
 */
function idempotentResultId(accountId: string, key: string): string {
  const hex = createHash('sha256').update(`${accountId}\0${key}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

const REPLAY_UNAVAILABLE =
  'A request with this Idempotency-Key is still running or did not deliver a result. Send a new key to run the tool again.'

function asToolError(error: unknown, tool: ToolSlug): ToolError {
  if (error instanceof ToolError) return error
  if (error instanceof ModelMissingError) return new ToolError(503, error.message, { outcome: 'failed' })
  logger.error({ err: error, tool }, 'tool run failed')
  return new ToolError(500, TOOL_MESSAGES[tool].defaultError, { outcome: 'failed', cause: error })
}

/** The stored answer of an idempotent run, for its retry. */
function replayedSubmission(
  tool: ToolSlug,
  resultId: string,
  stored: { bytes: Buffer; contentType: string; filename: string; runDetails: RunDetails },
  remaining: number | null,
  headers: Record<string, string>,
): ToolSubmission {
  const { facesFound, gfpganAvailable, note } = stored.runDetails
  headers['Content-Type'] = stored.contentType
  headers['Content-Disposition'] = contentDisposition(stored.filename)
  headers['Idempotent-Replayed'] = 'true'
  if (note) headers['X-Facet-Note'] = note
  if (remaining !== null) headers['X-Credits-Remaining'] = String(remaining)
  if (facesFound !== undefined) headers['X-Faces-Found'] = String(facesFound)
  return {
    ok: true,
    tool,
    bytes: stored.bytes,
    contentType: stored.contentType,
    filename: stored.filename,
    remaining: remaining ?? 0,
    facesFound,
    gfpganAvailable,
    note,
    resultId,
    headers,
    fieldValues: {},
  }
}

/**
 * Parses the multipart request (file field + options), resolves and charges the caller, runs the
 * tool in the queue, refunds on failure, records the run. With storeResult the output is also kept
 * encrypted in the results store (24 h) and resultId returned: its URL is `/api/results/<id>`.
 */
export async function runToolSubmission(
  request: Request,
  tool: ToolSlug,
  options: { storeResult?: boolean } = {},
): Promise<ToolSubmission> {
  const started = performance.now()
  const definition = TOOLS[tool]
  const headers: Record<string, string> = {}
  let remaining: number | null = null
  let caller: Caller | null = null
  let chargeId: number | null = null
  let fields: Record<string, string> = {}
  let inputBytes: number | null = null
  let inspected: Inspected | null = null
  let modelMs: number | null = null
  // Refusals before the upload is read (sign-in, rate limit, busy, missing model) are not runs and
  // are not recorded, so a flood of them writes nothing.
  let recording = false

  const finish = async (outcome: RunOutcome, extra: { error?: string; outputBytes?: number } = {}) => {
    if (!recording) return
    await recordToolRun({
      tool,
      accountId: caller?.accountId ?? null,
      outcome,
      error: extra.error ?? null,
      durationMs: performance.now() - started,
      modelMs,
      inputBytes,
      inputWidth: inspected?.width ?? null,
      inputHeight: inspected?.height ?? null,
      outputBytes: extra.outputBytes ?? null,
    })
  }

  try {
    const known = await resolveCaller(request, { create: false })
    if (known.kind === 'invalid-token') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
    if (known.kind === 'rate-limited') {
      throw new ToolError(429, 'Too many requests. Please wait a moment.', { headers: { 'Retry-After': String(known.retryAfterSeconds) } })
    }
    remaining = known.balance
    if (known.kind === 'caller') caller = known.caller
    if (definition.signInRequired && caller?.source !== 'user') throw new ToolError(401, SVG_SIGN_IN_MESSAGE)

    const limited = await consumeRateLimit(TOOL_RUN_RATE, caller?.accountId ?? clientAddress(request))
    if (!limited.ok) {
      throw new ToolError(429, 'Too many runs in a short time. Please wait a moment.', {
        headers: { 'Retry-After': String(limited.retryAfterSeconds) },
      })
    }
    // A retry of a run that delivered gets the same answer again, without a second run or charge.
    const idempotency = idempotencyKey(request, tool)
    if (idempotency.sent && caller) {
      const replayId = idempotentResultId(caller.accountId, idempotency.key)
      const stored = await readResult(replayId, caller.accountId)
      if (stored) return replayedSubmission(tool, replayId, stored, remaining, headers)
    }

    const missing = missingModel(tool)
    if (missing) throw new ToolError(503, missing.message, { outcome: 'failed' })
    if (toolQueue().isFull()) throw new QueueFullError(toolQueue().retryAfterSeconds())

    recording = true
    const runner = runnerFor(tool)
    const upload = await parseToolUpload(request, tool, runner.optionFields)
    fields = upload.fields
    const file = requireFile(upload, tool)
    inputBytes = file.bytes.byteLength
    const runOptions = await runner.parseOptions(upload.fields)
    inspected = await runner.inspect(file.bytes, runOptions)

    if (!caller) {
      const created = await resolveCaller(request)
      if (created.kind === 'rate-limited') {
        throw new ToolError(429, 'Too many new visitors from this address. Please wait a moment.', {
          headers: { 'Retry-After': String(created.retryAfterSeconds) },
        })
      }
      if (created.kind !== 'caller') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
      caller = created.caller
      remaining = created.balance
      if (created.setCookie) headers['Set-Cookie'] = created.setCookie
    }

    const cost = toolCost(tool)
    const notEnough = (balance: number) =>
      new ToolError(402, `Not enough credits: this run costs ${cost} and your balance is ${balance}.`)
    // A balance already known to be short is refused without queueing; the charge decides for real.
    if (remaining !== null && remaining < cost && !request.headers.has('idempotency-key')) throw notEnough(remaining)

    const payer = caller
    // The charge waits until the runner has decoded the file inside the run's slot: the queue bounds
    // the memory of decoded pixels too (40 MP is 160 MB of RGBA), and a file that fails to decode is
    // refused before anything is charged.
    const delivered = await toolQueue().run(async (signal) => {
      const chargeOnceDecoded = async () => {
        if (signal.aborted) throw new RunTimeoutError(toolQueue().options.timeoutMs)
        const charged = await charge({
          accountId: payer.accountId,
          amount: cost,
          toolSlug: definition.ledgerSlug,
          idempotencyKey: idempotency.key,
          description: definition.name,
        })
        if (!charged.ok) {
          remaining = charged.balance
          throw notEnough(charged.balance)
        }
        if (charged.replayed) {
          // The key's charge stands for another request (still running, or failed and refunded): this
          // one must neither run for free nor refund that charge.
          remaining = charged.balance
          throw new ToolError(409, REPLAY_UNAVAILABLE)
        }
        if (signal.aborted) {
          // The request already answered (timed out) while the charge was being written: undo it here.
          await refund(charged.transactionId, `Refund: ${definition.name} run failed`)
          throw new RunTimeoutError(toolQueue().options.timeoutMs)
        }
        remaining = charged.balance
        chargeId = charged.transactionId
      }
      // Progress is reported by the runner; this request path has no one to tell it to (the jobs do).
      return runner.run({ bytes: file.bytes, options: runOptions, signal, progress: () => {}, decoded: chargeOnceDecoded })
    })
    modelMs = delivered.modelMs

    let outcome: RunOutcome = 'success'
    const refundReason = runner.refundReason?.(delivered) ?? null
    if (refundReason) {
      // The (metadata-free) picture still comes back, but nothing was done that is owed.
      remaining = (await refund(chargeId!, refundReason)).balance
      outcome = 'no_face'
    }
    const filename = runner.outputName(runOptions, file.name)
    const note = [...inspected.notes, ...(delivered.note ? [delivered.note] : [])].join(' ') || undefined
    let resultId: string | undefined
    if (options.storeResult || idempotency.sent) {
      const runDetails: RunDetails = { facesFound: delivered.facesFound, gfpganAvailable: delivered.gfpganAvailable, note }
      resultId = await storeResult({
        ownerAccountId: caller.accountId,
        bytes: delivered.bytes,
        contentType: delivered.contentType,
        filename,
        runDetails,
        id: idempotency.sent ? idempotentResultId(caller.accountId, idempotency.key) : undefined,
      })
    }
    await finish(outcome, { outputBytes: delivered.bytes.byteLength })

    headers['Content-Type'] = delivered.contentType
    headers['Content-Disposition'] = contentDisposition(filename)
    headers['X-Credits-Remaining'] = String(remaining)
    if (delivered.facesFound !== undefined) headers['X-Faces-Found'] = String(delivered.facesFound)
    if (note) headers['X-Facet-Note'] = note
    return {
      ok: true,
      tool,
      bytes: delivered.bytes,
      contentType: delivered.contentType,
      filename,
      remaining,
      facesFound: delivered.facesFound,
      gfpganAvailable: delivered.gfpganAvailable,
      note,
      resultId,
      headers,
      fieldValues: fields,
    }
  } catch (thrown) {
    const error = asToolError(thrown, tool)
    if (chargeId !== null) {
      try {
        remaining = (await refund(chargeId, `Refund: ${definition.name} run failed`)).balance
      } catch (refundError) {
        logger.error({ err: refundError, chargeId }, 'refund failed')
      }
    }
    await finish(error.outcome, { error: error.message })
    Object.assign(headers, error.headers)
    if (remaining !== null) headers['X-Credits-Remaining'] = String(remaining)
    return {
      ok: false,
      tool,
      status: error.status,
      error: error.message,
      remaining,
      gfpganAvailable: runnerFor(tool).engine?.().gfpganAvailable,
      headers,
      fieldValues: fields,
    }
  }
}

/** The /api answer of spec §7: the image (or the restorer's JSON), or JSON {error, remaining}. */
export function submissionResponse(submission: ToolSubmission): Response {
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  for (const [name, value] of Object.entries(submission.headers)) headers.set(name, value)
  if (!submission.ok) {
    headers.delete('Content-Disposition')
    const body: Record<string, unknown> = { error: submission.error, remaining: submission.remaining }
    if (submission.gfpganAvailable !== undefined) body.gfpgan_available = submission.gfpganAvailable
    return Response.json(body, { status: submission.status, headers })
  }
  if (runnerFor(submission.tool).answer === 'link' && submission.resultId) {
    headers.delete('Content-Disposition')
    headers.set('Content-Type', 'application/json')
    // The note (which engine ran) rides in the body too, for clients that read only the JSON.
    const body = { restored_url: resultUrl(submission.resultId), gfpgan_available: submission.gfpganAvailable ?? false }
    return Response.json(submission.note ? { ...body, note: submission.note } : body, { headers })
  }
  headers.set('Content-Length', String(submission.bytes.byteLength))
  return new Response(new Uint8Array(submission.bytes), { status: 200, headers })
}
