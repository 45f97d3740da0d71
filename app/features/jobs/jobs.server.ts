// The tool_jobs table: one row per tool run from its charge to its outcome. Status moves
// queued → running → succeeded | failed, and only conditional updates move it: the outcome is
// written by the first writer that finds the job unfinished, whoever else tries later (a retried
// attempt, a timed-out request, the dead-letter handler) changes nothing.
import { sql, type Selectable } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import type { ToolJobsTable } from '~/db/schema'
import { TOOLS, type ProgressStep, type ToolSlug } from '~/catalog/tools'
import { openBytes, sealBytes } from './results.server'
import { resultUrl } from './view'
import { tools } from './runners.server'
import type { CutoutLayout } from './runner'
import type { JobView } from './view'

export type ToolJobRow = Selectable<ToolJobsTable>
/** The row without the encrypted upload (what every reader but the worker needs). */
export type ToolJobInfo = Omit<ToolJobRow, 'upload_iv' | 'upload_auth_tag' | 'upload_ciphertext'>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const UNFINISHED = ['queued', 'running'] as const
const INFO_COLUMNS = [
  'id', 'account_id', 'tool', 'options', 'original_name', 'input_bytes', 'input_width', 'input_height', 'notes',
  'idempotency_key', 'request_fingerprint', 'charge_transaction_id', 'status', 'progress', 'stage', 'attempts',
  'outcome', 'refunded', 'result_id', 'filename', 'faces_found', 'gfpgan_available', 'note', 'error',
  'error_status', 'created_at', 'started_at', 'heartbeat_at', 'finished_at', 'api_key_id', 'test_mode',
  'batch_id', 'batch_position', 'user_id', 'model', 'idempotency_scope', 'cutout_layout',
] as const

export interface NewToolJob {
  id: string
  accountId: string
  tool: ToolSlug
  options: unknown
  originalName: string
  bytes: Buffer
  /**
   * The tool's optional second file (the remover's background image). Sealed with the upload, right
   * after it: `input_bytes` is the first file's length, which is where claimJob splits them.
   */
  secondBytes?: Buffer | null
  width: number | null
  height: number | null
  notes: string[]
  idempotencyKey: string | null
  /** Whose key it is (idempotencyScope in submit.server.ts); set whenever idempotencyKey is. */
  idempotencyScope?: string | null
  fingerprint: string
  /** Null for a test key's job (never charged) and a batch item (charged when a worker starts it). */
  chargeTransactionId: number | null
  apiKeyId?: string | null
  testMode?: boolean
  batchId?: string | null
  batchPosition?: number | null
  /** The signed-in user who sent it (the member, when a team pays). */
  userId?: string | null
  /**
   * An inline run (docs/decisions/176): inserted running (attempt 1, its first progress written), and
   * without its upload (nothing runs it again: a run lost with its process fails unpaid).
   */
  inline?: { first: ProgressStep }
}

/**
 * Inserts the job with its upload sealed under RESULTS_KEY (the job id is the additional data), and
 * answers the row as readers see it (no second read).
 */
export async function insertJob(job: NewToolJob, dbOrTx: DbOrTx): Promise<ToolJobInfo> {
  const sealed = job.inline ? null : sealBytes(job.id, job.secondBytes ? Buffer.concat([job.bytes, job.secondBytes]) : job.bytes)
  const started = job.inline
    ? { status: 'running' as const, attempts: 1, started_at: sql<Date>`now()`, heartbeat_at: sql<Date>`now()`, progress: job.inline.first.percent, stage: job.inline.first.message }
    : {}
  return dbOrTx
    .insertInto('tool_jobs')
    .values({
      id: job.id,
      account_id: job.accountId,
      tool: job.tool,
      options: JSON.stringify(job.options ?? {}),
      original_name: job.originalName,
      upload_iv: sealed?.iv ?? null,
      upload_auth_tag: sealed?.auth_tag ?? null,
      upload_ciphertext: sealed?.ciphertext ?? null,
      ...started,
      input_bytes: job.bytes.byteLength,
      input_width: job.width,
      input_height: job.height,
      notes: JSON.stringify(job.notes),
      idempotency_key: job.idempotencyKey,
      idempotency_scope: job.idempotencyKey ? (job.idempotencyScope ?? null) : null,
      request_fingerprint: job.fingerprint,
      charge_transaction_id: job.chargeTransactionId,
      api_key_id: job.apiKeyId ?? null,
      test_mode: job.testMode ?? false,
      batch_id: job.batchId ?? null,
      batch_position: job.batchPosition ?? null,
      user_id: job.userId ?? null,
    })
    .returning(INFO_COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function findJob(id: string, dbOrTx: DbOrTx = getDb()): Promise<ToolJobInfo | null> {
  if (!UUID.test(id)) return null
  return (await dbOrTx.selectFrom('tool_jobs').select(INFO_COLUMNS).where('id', '=', id).executeTakeFirst()) ?? null
}

/** The job when `accountId` owns it; null for anyone else (one answer for all: 404). */
export async function findOwnedJob(id: string, accountId: string | null, dbOrTx: DbOrTx = getDb()): Promise<ToolJobInfo | null> {
  if (!accountId) return null
  const job = await findJob(id, dbOrTx)
  return job && job.account_id === accountId ? job : null
}

/** The job an Idempotency-Key names within its scope (the account, environment and credential). */
export async function findJobByKey(accountId: string, scope: string, key: string, dbOrTx: DbOrTx = getDb()): Promise<ToolJobInfo | null> {
  return (
    (await dbOrTx
      .selectFrom('tool_jobs')
      .select(INFO_COLUMNS)
      .where('account_id', '=', accountId)
      .where('idempotency_scope', '=', scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst()) ?? null
  )
}

/**
 * A worker takes the job: queued → running, or running → running again when pg-boss hands back the
 * job of a worker that died. Null when the job has ended (its outcome is recorded already).
 */
export async function claimJob(
  id: string,
  dbOrTx: DbOrTx = getDb(),
): Promise<{ job: ToolJobInfo; bytes: Buffer; secondBytes: Buffer | null } | null> {
  const row = await dbOrTx
    .updateTable('tool_jobs')
    .set({ status: 'running', attempts: sql`attempts + 1`, started_at: sql`now()`, heartbeat_at: sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', UNFINISHED)
    .returningAll()
    .executeTakeFirst()
  if (!row || !row.upload_ciphertext || !row.upload_iv || !row.upload_auth_tag) return null
  const sealed = openBytes(id, { iv: row.upload_iv, auth_tag: row.upload_auth_tag, ciphertext: row.upload_ciphertext })
  const { upload_iv: _iv, upload_auth_tag: _tag, upload_ciphertext: _bytes, ...job } = row
  const bytes = sealed.subarray(0, row.input_bytes)
  return { job, bytes, secondBytes: sealed.byteLength > row.input_bytes ? sealed.subarray(row.input_bytes) : null }
}

/**
 * The admitting transaction runs the job where it was admitted (docs/decisions/124): queued →
 * running as claimJob does it, without reading back the upload the request holds in memory. The
 * run's first progress (`first`, what the worker would write as it starts) goes in the same statement.
 */
export async function startJob(id: string, first: ProgressStep, dbOrTx: DbOrTx): Promise<ToolJobInfo> {
  return dbOrTx
    .updateTable('tool_jobs')
    .set({
      status: 'running',
      attempts: sql`attempts + 1`,
      started_at: sql`now()`,
      heartbeat_at: sql`now()`,
      progress: first.percent,
      stage: first.message,
    })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .returning(INFO_COLUMNS)
    .executeTakeFirstOrThrow()
}

/**
 * Single runs still running whose last sign of life (start, progress) is older than `silentMs`: the
 * candidates for a run lost with its process (the caller keeps those with no pg-boss job).
 */
export async function findSilentRuns(silentMs: number, dbOrTx: DbOrTx = getDb()): Promise<ToolJobInfo[]> {
  return dbOrTx
    .selectFrom('tool_jobs')
    .select(INFO_COLUMNS)
    .where('status', '=', 'running')
    .where('batch_id', 'is', null)
    .where('heartbeat_at', '<', sql<Date>`now() - make_interval(secs => ${silentMs / 1000})`)
    .limit(100)
    .execute()
}

/** Stores progress while the job runs. False when it has ended meanwhile (timed out): stop working. */
export async function saveProgress(id: string, progress: number, stage: string | null, dbOrTx: DbOrTx = getDb()): Promise<boolean> {
  const updated = await dbOrTx
    .updateTable('tool_jobs')
    .set({ progress: Math.max(0, Math.min(100, Math.round(progress))), ...(stage ? { stage } : {}), heartbeat_at: sql`now()` })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

/** A worker shutting down gives the job back (pg-boss retries it elsewhere): running → queued. */
export async function releaseJob(id: string, dbOrTx: DbOrTx = getDb()): Promise<void> {
  await dbOrTx
    .updateTable('tool_jobs')
    .set({ status: 'queued', progress: 0, stage: null })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute()
}

export interface JobEnding {
  outcome: 'success' | 'failed' | 'no_face'
  refunded: boolean
  /** An inline run's charge, taken in the outcome's own transaction (docs/decisions/176). */
  chargeTransactionId?: number
  resultId?: string | null
  filename?: string | null
  facesFound?: number | null
  gfpganAvailable?: boolean | null
  note?: string | null
  model?: string | null
  /** A composed cutout's size and subject box (the remover), for the remove.bg-compatible answer. */
  layout?: CutoutLayout | null
  error?: string | null
  errorStatus?: number | null
}

/**
 * Records the outcome, once: only a job still queued or running changes, and its upload is
 * deleted with it. Null when someone recorded the outcome first (the caller must then undo nothing
 * and write nothing: run it inside the transaction that holds the refund and the result).
 */
export async function finishJob(id: string, ending: JobEnding, dbOrTx: DbOrTx): Promise<ToolJobInfo | null> {
  const row = await dbOrTx
    .updateTable('tool_jobs')
    .set({
      status: ending.outcome === 'failed' ? 'failed' : 'succeeded',
      outcome: ending.outcome,
      refunded: ending.refunded,
      progress: ending.outcome === 'failed' ? sql`progress` : 100,
      result_id: ending.resultId ?? null,
      filename: ending.filename ?? null,
      faces_found: ending.facesFound ?? null,
      gfpgan_available: ending.gfpganAvailable ?? null,
      note: ending.note ?? null,
      model: ending.model ?? null,
      cutout_layout: ending.layout ? JSON.stringify(ending.layout) : null,
      error: ending.error ? ending.error.slice(0, 500) : null,
      error_status: ending.errorStatus ?? null,
      ...(ending.chargeTransactionId !== undefined ? { charge_transaction_id: ending.chargeTransactionId } : {}),
      upload_iv: null,
      upload_auth_tag: null,
      upload_ciphertext: null,
      finished_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', 'in', UNFINISHED)
    .returning(INFO_COLUMNS)
    .executeTakeFirst()
  return row ?? null
}

/** A corrected cutout's new size and subject box (decision 157): the job describes the result it serves. */
export async function replaceJobLayout(id: string, layout: CutoutLayout | null, dbOrTx: DbOrTx): Promise<void> {
  await dbOrTx.updateTable('tool_jobs').set({ cutout_layout: layout ? JSON.stringify(layout) : null }).where('id', '=', id).execute()
}

/** Credits the job took and kept: its charge unless refunded (0 for test keys and uncharged items). */
export function creditsCharged(job: Pick<ToolJobInfo, 'tool' | 'charge_transaction_id' | 'refunded'>): number {
  return job.charge_transaction_id !== null && !job.refunded ? tools().cost(job.tool as ToolSlug) : 0
}

export function isFinished(job: Pick<ToolJobInfo, 'status'>): boolean {
  return job.status === 'succeeded' || job.status === 'failed'
}

/** The message of a tool's last step: what a succeeded job's stage reads. */
export function finalStage(tool: ToolSlug): string | null {
  const steps = TOOLS[tool]?.steps
  return steps?.length ? steps[steps.length - 1].message : null
}

/** The job as the screens and GET /api/jobs/<id>/ see it. */
export function jobView(job: ToolJobInfo, remaining: number | null): JobView {
  return {
    id: job.id,
    tool: job.tool as ToolSlug,
    status: job.status,
    progress: job.progress,
    // A finished run is at the tool's last step ('Cutout ready'), not at the stage it last reported.
    stage: job.status === 'succeeded' ? finalStage(job.tool as ToolSlug) : job.stage,
    resultUrl: job.result_id ? resultUrl(job.result_id) : null,
    filename: job.filename,
    error: job.error,
    remaining,
    refunded: job.refunded,
    facesFound: job.faces_found,
    note: job.note,
    handedBack: job.status === 'queued' && job.attempts > 0,
  }
}
