// Batches (issue 12): many files through one tool, each file a tool job of its own (so fair share,
// progress, retries and the exactly-once outcome are the jobs' own). A batch is paid item by item:
// nothing is charged when it is accepted (after a check that the balance covers every item), each
// item is charged when a worker starts it (chargeItemOnStart) and refunded if it fails, like any
// job. The outcome of the last item marks the batch completed and emits `batch.completed`, in that
// outcome's transaction, with the batch row locked so two last items cannot both miss it.
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { config } from '~/config.server'
import { executeTx, getDb } from '~/db/db.server'
import type { Caller } from '~/features/account/caller.server'
import { toolCost } from '~/features/tools/costs.server'
import { getBalance } from '~/features/credits/ledger.server'
import { prepareWebhooks } from '~/features/webhooks/endpoints.server'
import { isTestKey } from '~/features/api-keys/environments'
import { memberCap } from '~/features/account/charge.server'
import { batchCapMessage } from '~/features/teams/messages'
import { headroomOf, passesCap } from '~/features/teams/headroom'
import type { ToolSlug } from '~/catalog/tools'
import { admitRuns, checkRoom, openDoor, readResult, requestFingerprint, runsQueued, ToolError } from '~/features/jobs/door.server'
import { inspectForRun } from '~/features/tools/test-mode.server'
import { EMPTY_FILE_MESSAGE } from '~/features/tools/upload.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { asToolError } from '~/features/tools/submission.server'
import { RUN_FAILED, type RunState } from '~/features/jobs/run-state'
import { isUuid } from '~/utils/uuid'
import { itemsOf, itemView, settleBatch, summarise } from './items.server'
import { batchTooLargeMessage as tooLargeFor } from '../../catalog/batches'
import { unpaidBatchMessage } from './messages'
import { safeUniqueEntryNames } from './entry-names'
import { writeZip, type NamedBytes, type SkippedEntry } from './zip.server'

export { batchDownloadUrl, batchUrl } from './items.server'

export { MAX_BATCH_FILES } from '../../catalog/batches'
export const ERRORS_FILE = 'errors.json'

export function batchTooLargeMessage(): string {
  return tooLargeFor(config().BATCH_MAX_MEGABYTES)
}

/**
 * A batch refused because it would pass the member's monthly cap on the team (402, nothing written or
 * charged). `cost` is what the batch would have cost: the batch screen prices it in its over-cap panel.
 */
export class BatchOverCapError extends ToolError {
  constructor(
    message: string,
    readonly cost: number,
  ) {
    super(402, message, { outcome: 'rejected' })
  }
}

export interface CreatedBatch {
  id: string
  total: number
  remaining: number
  /** The zip entries that are not files of the batch (folders, hidden files). */
  skipped: SkippedEntry[]
}

/**
 * Checks each file without a decode (the tool's inspect), checks the balance covers every file that
 * passed, then in ONE transaction writes the batch, its items (a file refused by inspect is an item
 * that failed at once, never charged) and their pg-boss jobs, through the job platform's door.
 */
export async function createBatch(caller: Caller, tool: ToolSlug, fields: Record<string, string>, files: NamedBytes[], skipped: SkippedEntry[] = []): Promise<CreatedBatch> {
  const runner = runnerFor(tool)
  // An empty option field means the tool's default, as a form's blank field does.
  const options = await runner.parseOptions(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== '')))
  const testMode = isTestKey(caller)
  const items: Array<NamedBytes & { width: number | null; height: number | null; notes: string[]; error: ToolError | null; fingerprint: string }> = []
  for (const file of files) {
    const fingerprint = requestFingerprint(tool, options, file.bytes)
    try {
      if (file.bytes.byteLength === 0) throw new ToolError(400, EMPTY_FILE_MESSAGE)
      const { bytes, inspected } = await inspectForRun(runner, file.bytes, options, testMode)
      items.push({ name: file.name, bytes, fingerprint, width: inspected.width, height: inspected.height, notes: inspected.notes, error: null })
    } catch (thrown) {
      items.push({ name: file.name, bytes: file.bytes, fingerprint, width: null, height: null, notes: [], error: asToolError(thrown, tool) })
    }
  }
  const runnable = items.filter((i) => !i.error).length
  const cost = toolCost(tool)
  const balance = await getBalance(caller.accountId)
  if (!testMode && runnable * cost > balance) throw new ToolError(402, unpaidBatchMessage(runnable, cost, balance))
  // A member working as a team: the batch must fit in what is left of their monthly cap, too (each item's
  // charge checks again, under the member's lock, for runs that compete with it). Refused before
  // anything is written, with the batch's cost for the screen's over-cap panel.
  const cap = testMode || !caller.teamId ? null : await memberCap(caller.accountId, caller.userId, getDb())
  if (cap && passesCap(headroomOf(cap.cap, cap.used), runnable * cost)) {
    throw new BatchOverCapError(batchCapMessage(cap.cap, cap.teamName, cap.used, runnable, cost), runnable * cost)
  }

  // Advice before anything is written; the locked check in the transaction decides.
  await checkRoom('batch', caller.accountId, runnable)

  const boss = await openDoor()
  await prepareWebhooks()
  const id = randomUUID()
  await executeTx(getDb(), async (trx) => {
    await trx
      .insertInto('batches')
      .values({ id, account_id: caller.accountId, api_key_id: caller.apiKey?.id ?? null, tool, total: items.length, skipped: JSON.stringify(skipped) })
      .execute()
    // Past the batch queue's limit or the account's share: refused, nothing written.
    await admitRuns(
      trx,
      boss,
      'batch',
      items.map((item, position) => ({
        job: {
          id: randomUUID(),
          accountId: caller.accountId,
          tool,
          options,
          originalName: item.name,
          bytes: item.bytes,
          width: item.width,
          height: item.height,
          notes: item.notes,
          idempotencyKey: null,
          fingerprint: item.fingerprint,
          chargeTransactionId: null,
          apiKeyId: caller.apiKey?.id ?? null,
          testMode,
          batchId: id,
          batchPosition: position,
          userId: caller.userId,
        },
        refused: item.error ?? undefined,
      })),
    )
    // Every file refused up front: the batch is over already.
    await settleBatch(id, trx)
  })
  runsQueued()
  return { id, total: items.length, remaining: balance, skipped }
}

export type BatchView = ReturnType<typeof summarise>

/** The batch for its owner; null for anyone else and for ids that name nothing (one answer: 404). */
export async function findOwnedBatch(id: string, accountId: string | null): Promise<BatchView | null> {
  if (!accountId || !isUuid(id)) return null
  const batch = await getDb().selectFrom('batches').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
  if (!batch) return null
  return summarise(batch, await itemsOf(id, getDb()))
}

/** The client's name with the result's extension (shot.jpg → shot.png for a cut-out). */
export function resultName(originalName: string, resultFilename: string | null): string {
  const ext = path.posix.extname(resultFilename ?? '') || path.posix.extname(originalName)
  const stem = originalName.slice(0, originalName.length - path.posix.extname(originalName).length) || 'file'
  return `${stem}${ext}`
}

export const MANIFEST_FILE = 'manifest.json'
export const RESULT_EXPIRED = 'This result is no longer available: results are kept for 24 hours.'

/** One line of manifest.json: every file of the batch, in order, and what became of it. */
export interface ManifestEntry {
  /** The file's name as sent. */
  name: string
  /** Its result's name in this zip; null when it has none (failed, or expired). */
  file: string | null
  /**
   * True when `file` is not the name as sent (with the result's extension): the name was not safe in
   * a zip on every system, or another file had it first (entry-names.ts).
   */
  renamed: boolean
  state: RunState
  status_text: string
  credits_charged: number
  error: string | null
}

/**
 * The results under their clients' names (made safe and unique, entry-names.ts); manifest.json listing every file of the
 * batch with its state and charge; errors.json naming each file that failed or found no face.
 */
export async function batchArchive(id: string, accountId: string): Promise<Buffer | null> {
  const batch = await getDb().selectFrom('batches').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
  if (!batch) return null
  const items = await itemsOf(id, getDb())
  const results: Array<NamedBytes & { item: number }> = []
  const entries: ManifestEntry[] = []
  for (const [index, item] of items.entries()) {
    const view = itemView(item)
    const entry: ManifestEntry = { name: item.original_name, file: null, renamed: false, state: view.state, status_text: view.status_text, credits_charged: view.credits_charged, error: item.status === 'failed' ? (item.error ?? RUN_FAILED) : null }
    entries.push(entry)
    if (item.status !== 'succeeded' || !item.result_id) continue
    const stored = await readResult(item.result_id, accountId)
    if (stored) results.push({ name: resultName(item.original_name, item.filename), bytes: stored.bytes, item: index })
    else entry.error = RESULT_EXPIRED
  }
  const errors = entries.filter((e) => e.error !== null || e.state === 'no_face').map((e) => ({ name: e.name, error: e.error ?? e.status_text }))
  // manifest.json and errors.json first: they keep their names, a result that happens to share one is renamed.
  const names = safeUniqueEntryNames([MANIFEST_FILE, ERRORS_FILE, ...results.map((r) => r.name)])
  results.forEach((result, i) => {
    entries[result.item]!.file = names[i + 2]!
    entries[result.item]!.renamed = names[i + 2] !== result.name
  })
  const files: NamedBytes[] = [{ name: MANIFEST_FILE, bytes: Buffer.from(JSON.stringify(entries, null, 2)) }]
  if (errors.length > 0) files.push({ name: ERRORS_FILE, bytes: Buffer.from(JSON.stringify(errors, null, 2)) })
  results.forEach((result, i) => files.push({ name: names[i + 2]!, bytes: result.bytes }))
  return writeZip(files)
}
