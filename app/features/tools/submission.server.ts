// One tool run from an HTTP request to an answer, shared by the /api routes and the tool pages'
// actions (the no-JavaScript path). The order keeps bad input and busy servers free of charge:
// caller check → model check → multipart with a byte cap → options → type from the bytes →
// header pixel limit → decode → visitor created → charge → run in the queue → refund on failure
// → store (optionally) → record the run.
import { createHash, randomUUID } from 'node:crypto'
import { z } from 'zod'
import { resolveCaller, type Caller } from '~/features/credits/caller.server'
import { toolCost } from '~/features/credits/costs.server'
import { charge, refund } from '~/features/credits/ledger.server'
import { clientAddress, consumeRateLimit } from '~/features/security/rate-limit.server'
import { logger } from '~/utils/logger.server'
import { BACKGROUND_PRESETS, BLUR, cutoutFilename, HEX_COLOUR, SVG_FORMATS, SVG_SCALES, TOOLS, type SvgFormat, type ToolSlug } from './catalog'
import { ToolError, type RunOutcome } from './errors.server'
import type { RgbaImage } from './image'
import { modelEntry } from './models/manifest'
import { isModelInstalled, ModelMissingError, requiredModelsFor } from './models/registry.server'
import { QueueFullError, RunTimeoutError, toolQueue } from './queue.server'
import { readResult, resultUrl, storeResult, type RunDetails } from './results.server'
import { recordToolRun } from './runs.server'
import { checkOutputSize, convertSvg, parseBackground } from './svg-converter.server'
import { sanitizeSvg, type SanitizedSvg } from './svg-sanitize.server'
import {
  decodeToRgba,
  FIRST_FRAME_NOTE,
  parseToolUpload,
  readImageHeader,
  requireFile,
  sniffImageType,
  type UploadedFile,
} from './upload.server'
import { SVG_SIGN_IN_MESSAGE } from './ui/tool-messages'

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

/** What the spec's screens show when a run fails without a more precise reason. */
export const FAILURE_MESSAGES: Record<ToolSlug, string> = {
  'background-remover': 'Unable to process image.',
  'face-restorer': 'Unable to restore portrait.',
  'face-blurrer': 'Unable to blur faces.',
  'svg-converter': 'Unable to convert SVG.',
  'image-enhancer': 'Unable to enhance image.',
}

/** Generous for a person, tight for a script: the queue bounds the CPU, this bounds one client. */
export const TOOL_RUN_RATE = { name: 'tool-runs', points: 120, durationSeconds: 60 }

// ---- options -----------------------------------------------------------------------------------

export const OPTION_FIELDS: Record<ToolSlug, readonly string[]> = {
  // A form without JavaScript sends background=custom and the colour typed in background_custom.
  'background-remover': ['background', 'background_custom'],
  'face-restorer': [],
  'face-blurrer': ['blur'],
  'svg-converter': ['format', 'scale', 'background'],
  'image-enhancer': ['denoise'],
}

const BLUR_MESSAGE = `blur must be a number from ${BLUR.min} to ${BLUR.max} in steps of ${BLUR.step}.`
const blurSchema = z
  .string({ error: BLUR_MESSAGE })
  .trim()
  .regex(/^\d+(\.0+)?$/, BLUR_MESSAGE)
  .transform(Number)
  .refine((n) => n >= BLUR.min && n <= BLUR.max && (n - BLUR.min) % BLUR.step === 0, BLUR_MESSAGE)

const BACKGROUND_MESSAGE = `background must be a colour as #rgb or #rrggbb, or one of ${BACKGROUND_PRESETS.filter((p) => !p.startsWith('#')).join(', ')}.`
const cutoutBackgroundSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || v === 'transparent' || HEX_COLOUR.test(v) || (BACKGROUND_PRESETS as readonly string[]).includes(v), BACKGROUND_MESSAGE)
  .transform((v) => (v === '' || v === 'transparent' ? undefined : v))
  .optional()

const FORMAT_MESSAGE = `format must be one of ${SVG_FORMATS.join(', ')}.`
const SCALE_MESSAGE = `scale must be one of ${SVG_SCALES.join(', ')}.`
const svgSchema = z.object({
  format: z.enum(SVG_FORMATS, { error: FORMAT_MESSAGE }),
  scale: z
    .string({ error: SCALE_MESSAGE })
    .trim()
    .refine((v) => SVG_SCALES.some((s) => Number(s) === Number(v)) && v !== '', SCALE_MESSAGE)
    .transform(Number),
  background: z.string().optional(),
})

export const DENOISE_MESSAGE = 'denoise must be a number from 0 to 1.'
const denoiseSchema = z
  .string()
  .trim()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, DENOISE_MESSAGE)
  .transform(Number)
  .refine((n) => n >= 0 && n <= 1, DENOISE_MESSAGE)
  .optional()

export type Settings =
  | { tool: 'background-remover'; background?: string }
  | { tool: 'face-blurrer'; blur: number }
  | { tool: 'svg-converter'; format: SvgFormat; scale: number; background?: string }
  | { tool: 'face-restorer' }
  | { tool: 'image-enhancer'; denoise?: number }

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'The options are not valid.'
}

export async function readSettings(tool: ToolSlug, fields: Record<string, string>): Promise<Settings> {
  switch (tool) {
    case 'face-blurrer': {
      const blur = blurSchema.safeParse(fields.blur)
      if (!blur.success) throw new ToolError(400, firstIssue(blur.error))
      return { tool, blur: blur.data }
    }
    case 'background-remover': {
      const chosen = fields.background?.trim() === 'custom' ? fields.background_custom : fields.background
      const background = cutoutBackgroundSchema.safeParse(chosen)
      if (!background.success) throw new ToolError(400, firstIssue(background.error))
      return { tool, background: background.data }
    }
    case 'svg-converter': {
      const parsed = svgSchema.safeParse({ ...fields, format: fields.format?.trim().toLowerCase() })
      if (!parsed.success) throw new ToolError(400, firstIssue(parsed.error))
      const background = parsed.data.background === undefined ? undefined : await parseBackground(parsed.data.background)
      return { tool, format: parsed.data.format, scale: parsed.data.scale, background }
    }
    case 'image-enhancer': {
      // Absent means the enhancer's default strength; the spec's screen sends none.
      const denoise = denoiseSchema.safeParse(fields.denoise)
      if (!denoise.success) throw new ToolError(400, DENOISE_MESSAGE)
      return { tool, denoise: denoise.data }
    }
    default:
      return { tool }
  }
}

// ---- names -------------------------------------------------------------------------------------

/** The client's file name without folders, extension or characters that break a header. */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? ''
  const stem = last.replace(/\.[^.]*$/, '')
  return stem
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f"*:<>?|]/g, '')
    .trim()
    .slice(0, 100)
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266). */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

export function outputName(settings: Settings, original: string): string {
  const base = baseName(original)
  switch (settings.tool) {
    case 'svg-converter':
      return `${base || 'converted'}.${settings.format}`
    case 'image-enhancer':
      return base ? `${base}-enhanced.png` : TOOLS['image-enhancer'].downloadName
    case 'background-remover':
      return settings.background ? cutoutFilename(settings.background) : TOOLS['background-remover'].downloadName
    default:
      return TOOLS[settings.tool].downloadName
  }
}

// ---- running -----------------------------------------------------------------------------------

/** An upload that passed every check that does not need its pixels decoded. */
type Prepared =
  | { kind: 'image'; bytes: Buffer; width: number; height: number; notes: string[] }
  | { kind: 'svg'; svg: SanitizedSvg; width: number; height: number; notes: string[] }

interface Delivered {
  bytes: Buffer
  contentType: string
  modelMs: number | null
  facesFound?: number
  gfpganAvailable?: boolean
  /** Told to the caller in X-Facet-Note (for example a model that was missing and replaced). */
  note?: string | null
}

export async function prepare(tool: ToolSlug, file: UploadedFile): Promise<Prepared> {
  if (tool === 'svg-converter') {
    const svg = await sanitizeSvg(file.bytes)
    return { kind: 'svg', svg, width: Math.round(svg.width), height: Math.round(svg.height), notes: [] }
  }
  await sniffImageType(file.bytes, tool)
  const header = await readImageHeader(file.bytes)
  return { kind: 'image', bytes: file.bytes, width: header.width, height: header.height, notes: header.pages > 1 ? [FIRST_FRAME_NOTE] : [] }
}

// The inference modules load onnxruntime; importing them only when a run needs them keeps the SVG
// converter and the pages free of that start-up cost.
export async function execute(settings: Settings, prepared: Prepared, image: RgbaImage | null, signal: AbortSignal): Promise<Delivered> {
  if (prepared.kind === 'svg') {
    if (settings.tool !== 'svg-converter') throw new Error('an SVG reached a raster tool')
    const out = await convertSvg(prepared.svg, settings, signal)
    return { bytes: out.bytes, contentType: out.contentType, modelMs: out.renderMs }
  }
  if (!image) throw new Error('a raster tool ran without its decoded image')
  switch (settings.tool) {
    case 'background-remover': {
      const { removeBackground } = await import('./background-remover.server')
      const out = await removeBackground(image, { background: settings.background, signal })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs }
    }
    case 'face-blurrer': {
      const { blurFaces } = await import('./face-blurrer.server')
      const out = await blurFaces(image, { blur: settings.blur, signal })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, facesFound: out.facesFound }
    }
    case 'image-enhancer': {
      const { enhanceImage } = await import('./image-enhancer.server')
      const out = await enhanceImage(image, { signal, denoise: settings.denoise })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, note: out.note }
    }
    case 'face-restorer': {
      const { restoreFaces } = await import('./face-restorer.server')
      const out = await restoreFaces(image, { signal })
      return {
        bytes: out.bytes,
        contentType: out.contentType,
        modelMs: out.modelMs,
        facesFound: out.facesFound,
        gfpganAvailable: out.gfpganAvailable,
      }
    }
    default:
      throw new Error(`no runner for ${settings.tool}`)
  }
}

export function missingModel(tool: ToolSlug): ModelMissingError | null {
  for (const id of requiredModelsFor(tool)) {
    if (!isModelInstalled(id)) return new ModelMissingError(id, modelEntry(id).file)
  }
  return null
}

export function gfpganAvailable(): boolean {
  try {
    return isModelInstalled('gfpgan')
  } catch {
    return false
  }
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

export function asToolError(error: unknown, tool: ToolSlug): ToolError {
  if (error instanceof ToolError) return error
  if (error instanceof ModelMissingError) return new ToolError(503, error.message, { outcome: 'failed' })
  logger.error({ err: error, tool }, 'tool run failed')
  return new ToolError(500, FAILURE_MESSAGES[tool], { outcome: 'failed', cause: error })
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
  if (tool === 'face-blurrer' && facesFound !== undefined) headers['X-Faces-Found'] = String(facesFound)
  return {
    ok: true,
    tool,
    bytes: stored.bytes,
    contentType: stored.contentType,
    filename: stored.filename,
    remaining: remaining ?? 0,
    facesFound,
    gfpganAvailable,
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
  let prepared: Prepared | null = null
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
      inputWidth: prepared?.width ?? null,
      inputHeight: prepared?.height ?? null,
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
    const upload = await parseToolUpload(request, tool, OPTION_FIELDS[tool])
    fields = upload.fields
    const file = requireFile(upload, tool)
    inputBytes = file.bytes.byteLength
    const settings = await readSettings(tool, upload.fields)
    prepared = await prepare(tool, file)
    if (prepared.kind === 'svg' && settings.tool === 'svg-converter') {
      checkOutputSize(prepared.svg, settings.scale)
    }

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
    const ready = prepared
    // Decoding happens inside the run's slot, so the queue bounds the memory of decoded pixels too
    // (40 MP is 160 MB of RGBA). A file that fails to decode is refused before anything is charged.
    const delivered = await toolQueue().run(async (signal) => {
      const image = ready.kind === 'image' ? await decodeToRgba(ready.bytes) : null
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
      return execute(settings, ready, image, signal)
    })
    modelMs = delivered.modelMs

    let outcome: RunOutcome = 'success'
    if ((tool === 'face-blurrer' || tool === 'face-restorer') && delivered.facesFound === 0) {
      // No face means nothing was anonymised or restored, so nothing is owed; the (metadata-free)
      // picture still comes back.
      remaining = (await refund(chargeId!, 'Refund: no face found')).balance
      outcome = 'no_face'
    }
    const filename = outputName(settings, file.name)
    const note = [...prepared.notes, ...(delivered.note ? [delivered.note] : [])].join(' ') || undefined
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
    if (delivered.facesFound !== undefined && tool === 'face-blurrer') headers['X-Faces-Found'] = String(delivered.facesFound)
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
      gfpganAvailable: tool === 'face-restorer' ? gfpganAvailable() : undefined,
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
    if (submission.tool === 'face-restorer') body.gfpgan_available = submission.gfpganAvailable ?? false
    return Response.json(body, { status: submission.status, headers })
  }
  if (submission.tool === 'face-restorer' && submission.resultId) {
    headers.delete('Content-Disposition')
    headers.set('Content-Type', 'application/json')
    return Response.json(
      { restored_url: resultUrl(submission.resultId), gfpgan_available: submission.gfpganAvailable ?? false },
      { headers },
    )
  }
  headers.set('Content-Length', String(submission.bytes.byteLength))
  return new Response(new Uint8Array(submission.bytes), { status: 200, headers })
}
