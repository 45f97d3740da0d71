// The batch endpoints: POST /api/batches/ (multipart: `tool`, that tool's options, and up to
// MAX_BATCH_FILES files as repeated file fields, or one zip of them; more is refused with 400, a zip's
// folders and hidden files are skipped and listed) → 202 {id, url, total, skipped};
// GET /api/batches/<id>/ → the batch and its items; GET /api/batches/<id>/download/ → a zip of
// the results with errors.json. Batches are their owner's only: anyone else gets 404.
import path from 'node:path'
import { config } from '~/config.server'
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { callerRateKey, resolveCaller, type Caller } from '~/features/account/caller.server'
import { consumeRateLimit } from '~/features/security/rate-limit.server'
import { isToolSlug, MEGABYTE, TOOLS, type ToolSlug } from '~/catalog/tools'
import { ToolError, tooLarge } from '~/features/jobs/door.server'
import { ALL_OPTION_FIELDS, TOOL_MESSAGE } from '~/features/tools/jobs-api.server'
import { contentDisposition } from '~/http/headers'
import { INVALID_TOKEN_MESSAGE, missingModel, SVG_SIGN_IN_MESSAGE, TOOL_RUN_RATE } from '~/features/tools/submission.server'
import { anyToolFormLimits, readMultipartForm, type FormLimits } from '~/features/tools/upload.server'
import { BatchOverCapError, batchArchive, batchTooLargeMessage, batchUrl, createBatch, findOwnedBatch, MAX_BATCH_FILES, type CreatedBatch } from './batches.server'
import { TOO_MANY_FILES_MESSAGE, ZIP_ALONE_MESSAGE } from '../../catalog/batches'
import { isZip, readZipFiles, type NamedBytes, type ZipContents } from './zip.server'
import { MAX_ZIP_ENTRIES } from './zip-entries'
import { storableName } from './entry-names'
import { NO_STORE } from '~/http/headers'
import { runErrorResponse } from '~/http/errors.server'

export const BATCH_NOT_FOUND = 'No such batch.'
export const BATCH_NOT_DONE = 'The batch has not ended yet: download it once every file has run.'
/** Entries of a zip read at most (folders and skipped hidden files count too). */

/** A batch refused charges nothing, and says so. */
function batchRefusal(status: number, error: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return runErrorResponse(status, error, null, { [CREDITS_CHARGED_HEADER]: '0', ...headers }, extra)
}

/**
 * The files of the form, or of its one zip, with the names clients gave (base names only), and the
 * zip entries skipped (folders, hidden files). More files than the limit are refused, never cut.
 */
async function batchFiles(uploaded: NamedBytes[], tool: ToolSlug): Promise<ZipContents> {
  const fileLimit = TOOLS[tool].maxMegabytes * MEGABYTE
  let contents: ZipContents = { files: uploaded, skipped: [] }
  if (uploaded.length === 1 && isZip(uploaded[0]!.bytes)) {
    contents = await readZipFiles(uploaded[0]!.bytes, {
      maxFiles: MAX_BATCH_FILES,
      maxEntries: MAX_ZIP_ENTRIES,
      maxEntryBytes: fileLimit,
      maxTotalBytes: config().BATCH_MAX_MEGABYTES * MEGABYTE,
    })
  } else if (uploaded.some((f) => isZip(f.bytes))) {
    throw new ToolError(400, ZIP_ALONE_MESSAGE)
  }
  const { files, skipped } = contents
  if (files.length === 0) throw new ToolError(400, `Choose the files of the batch (field "${TOOLS[tool].fileField}", repeated, or one zip).`)
  if (files.length > MAX_BATCH_FILES) throw new ToolError(400, TOO_MANY_FILES_MESSAGE)
  const named = files.map((file, i) => {
    if (file.bytes.byteLength > fileLimit) throw tooLarge(`${file.name || `File ${i + 1}`} is too large (max ${TOOLS[tool].maxMegabytes}MB).`)
    return { name: storableName(path.posix.basename(file.name.replaceAll('\\', '/'))) || `file-${i + 1}`, bytes: file.bytes }
  })
  return { files: named, skipped }
}

/** Files sent in another tool's file field would not run: refused rather than left out. */
export function wrongFieldMessage(tool: ToolSlug, count: number, field: string): string {
  const expected = TOOLS[tool].fileField
  return `The ${TOOLS[tool].name} takes its files in the "${expected}" field; ${count} ${count === 1 ? 'file was' : 'files were'} sent in "${field}". Send every file in "${expected}".`
}

export type BatchSubmission =
  | { ok: true; batch: CreatedBatch; caller: Caller; setCookie: string | null }
  /** Refused, nothing stored or charged; `overCapCost`: past the member's monthly cap, the batch's cost. */
  | { ok: false; status: number; error: string; headers: Record<string, string>; overCapCost?: number }

/** A batch's form: up to MAX_BATCH_FILES files within BATCH_MAX_MEGABYTES (server.ts's Expect: 100-continue reads its bodyLimit). */
export function batchFormLimits(): FormLimits {
  const limits = anyToolFormLimits(['tool', ...ALL_OPTION_FIELDS], MAX_BATCH_FILES, config().BATCH_MAX_MEGABYTES * MEGABYTE)
  return { ...limits, tooLargeMessage: batchTooLargeMessage(), parts: MAX_BATCH_FILES + 30, tooManyFilesMessage: TOO_MANY_FILES_MESSAGE }
}

/** Reads, checks and creates a batch (shared by the API and the studio's batch screen). */
export async function acceptBatch(request: Request): Promise<BatchSubmission> {
  try {
    const resolved = await resolveCaller(request, { run: true })
    if (resolved.kind === 'invalid-token') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
    if (resolved.kind === 'team-refused') throw new ToolError(resolved.status, resolved.message)
    if (resolved.kind === 'guest-refused') throw new ToolError(resolved.status, resolved.message, { headers: resolved.headers })
    if (resolved.kind !== 'caller') throw new ToolError(401, INVALID_TOKEN_MESSAGE)
    const caller = resolved.caller
    const limited = await consumeRateLimit(TOOL_RUN_RATE, callerRateKey(caller))
    if (!limited.ok) throw new ToolError(429, 'Too many runs in a short time. Please wait a moment.', { headers: { 'Retry-After': String(limited.retryAfterSeconds) } })

    const form = await readMultipartForm(request, batchFormLimits())
    const tool = form.fields.tool?.trim()
    if (!tool || !isToolSlug(tool)) throw new ToolError(400, TOOL_MESSAGE)
    const slug = tool
    if (TOOLS[slug].signInRequired && caller.source !== 'user') throw new ToolError(401, SVG_SIGN_IN_MESSAGE)
    const missing = missingModel(slug)
    if (missing) throw new ToolError(503, missing.message)
    const uploaded = form.files.filter((f) => f.field === TOOLS[slug].fileField)
    const elsewhere = form.files.filter((f) => f.field !== TOOLS[slug].fileField)
    if (elsewhere.length > 0) throw new ToolError(400, wrongFieldMessage(slug, elsewhere.length, elsewhere[0]!.field))
    const { files, skipped } = await batchFiles(uploaded, slug)
    const batch = await createBatch(caller, slug, form.fields, files, skipped)
    return { ok: true, batch, caller, setCookie: resolved.setCookie }
  } catch (thrown) {
    if (!(thrown instanceof ToolError)) throw thrown
    const overCap = thrown instanceof BatchOverCapError ? { overCapCost: thrown.cost } : {}
    return { ok: false, status: thrown.status, error: thrown.message, headers: thrown.headers, ...overCap }
  }
}

export async function submitBatch(request: Request): Promise<Response> {
  const accepted = await acceptBatch(request)
  if (!accepted.ok) {
    // Past the member's monthly cap: what the batch would cost (for a zip the page could not count, only the server knows).
    const cost = accepted.overCapCost === undefined ? {} : { cost: accepted.overCapCost }
    return batchRefusal(accepted.status, accepted.error, accepted.headers, cost)
  }
  const { batch } = accepted
  const headers: Record<string, string> = {
    ...NO_STORE,
    Location: batchUrl(batch.id),
    // Nothing is charged on acceptance: each file is charged when its run starts.
    [CREDITS_CHARGED_HEADER]: '0',
    'X-Credits-Remaining': String(batch.remaining),
  }
  if (accepted.setCookie) headers['Set-Cookie'] = accepted.setCookie
  return Response.json({ id: batch.id, url: batchUrl(batch.id), total: batch.total, skipped: batch.skipped }, { status: 202, headers })
}

export async function callerAccount(request: Request): Promise<string | null> {
  const caller = await resolveCaller(request, { create: false })
  return caller.kind === 'caller' ? caller.caller.accountId : null
}

export async function readBatch(request: Request, id: string): Promise<Response> {
  const batch = await findOwnedBatch(id, await callerAccount(request))
  if (!batch) return batchRefusal(404, BATCH_NOT_FOUND)
  return Response.json(batch, { headers: NO_STORE })
}

export async function downloadBatch(request: Request, id: string): Promise<Response> {
  const accountId = await callerAccount(request)
  const batch = await findOwnedBatch(id, accountId)
  if (!batch || !accountId) return batchRefusal(404, BATCH_NOT_FOUND)
  if (batch.status !== 'completed') return batchRefusal(409, BATCH_NOT_DONE)
  const zip = await batchArchive(id, accountId)
  if (!zip) return batchRefusal(404, BATCH_NOT_FOUND)
  return new Response(new Uint8Array(zip), {
    headers: { ...NO_STORE, 'Content-Type': 'application/zip', 'Content-Disposition': contentDisposition(`batch-${id.slice(0, 8)}.zip`), 'Content-Length': String(zip.byteLength) },
  })
}
