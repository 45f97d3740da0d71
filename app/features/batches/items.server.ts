// A batch's items from the run side (the worker and the jobs' outcome import this, so it imports
// nothing of theirs): the charge an item takes when its run starts, and the batch's completion,
// decided in the outcome transaction of its last item.
import { sql, type Transaction } from 'kysely'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { toolCost } from '~/features/tools/costs.server'
import { chargeRun } from '~/features/account/charge.server'
import { ITEM_SENDER_LEFT } from '~/features/teams/messages'
import { emitEvent } from '~/features/webhooks/endpoints.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { creditsCharged, resultUrl, type ToolJobInfo } from '~/features/jobs/door.server'
import { runState, runStateText } from '~/features/jobs/run-state'
import { thumbnailUrl } from '~/features/tools/ui/page-result'
import type { SkippedEntry } from './zip.server'

export function batchUrl(id: string): string {
  return `/api/batches/${id}/`
}

export function batchDownloadUrl(id: string): string {
  return `/api/batches/${id}/download/`
}

/** A batch item that could not be charged when it started: it fails with this, unpaid. */
export interface ItemRefused {
  refused: { status: 402 | 403; message: string }
}

/**
 * A batch item starts on a worker: it is charged now (once: the charge's key is the job's), only
 * while the job is still running. Refused when the balance no longer covers it (spent elsewhere
 * meanwhile), when it would pass the member's monthly cap on a team, or when the member has left
 * the team since: the item then fails unpaid. Null when nothing is (or was) charged.
 */
export async function chargeItemOnStart(job: ToolJobInfo): Promise<number | null | ItemRefused> {
  if (!job.batch_id || job.test_mode || job.charge_transaction_id !== null) return job.charge_transaction_id
  const tool = job.tool as ToolSlug
  const ended = new Error('job ended before its charge')
  return executeTx(getDb(), async (trx) => {
    const charged = await chargeRun(
      {
        accountId: job.account_id,
        amount: toolCost(tool),
        toolSlug: TOOLS[tool].ledgerSlug,
        idempotencyKey: `job:${job.id}`,
        description: TOOLS[tool].name,
        apiKeyId: job.api_key_id,
        userId: job.user_id,
      },
      trx,
    )
    if (!charged.ok) {
      // A plain short balance keeps the batch's own words; a team's cap says why. A sender who left
      // gets words for whoever reads the batch now (the team's other members): the charge's own
      // "You are not a member of this team." would be about the reader, and wrong.
      const message = charged.reason === 'insufficient' ? ITEM_UNPAID_MESSAGE : charged.reason === 'not-member' ? ITEM_SENDER_LEFT : charged.message
      return { refused: { status: charged.status, message } }
    }
    const updated = await trx
      .updateTable('tool_jobs')
      .set({ charge_transaction_id: charged.transactionId })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .where('charge_transaction_id', 'is', null)
      .executeTakeFirst()
    // Ended meanwhile (its outcome is written, without a charge to refund): the charge rolls back.
    if (Number(updated.numUpdatedRows) === 0) throw ended
    return charged.transactionId
  }).catch((error: unknown) => {
    if (error === ended) return null
    throw error
  })
}

export const ITEM_UNPAID_MESSAGE = 'Not enough credits left to run this file when its turn came.'

/**
 * Called in an item's outcome transaction: when no item of the batch is left unfinished, the batch
 * is completed (once) and `batch.completed` is emitted. The batch row is locked first, so of two
 * items ending at once the second sees the first's end.
 */
export async function settleBatch(batchId: string, trx: Transaction<Database>): Promise<void> {
  const batch = await trx.selectFrom('batches').selectAll().where('id', '=', batchId).forUpdate().executeTakeFirst()
  if (!batch || batch.status !== 'running') return
  const items = await itemsOf(batchId, trx)
  if (items.some((i) => i.status === 'queued' || i.status === 'running')) return
  await trx.updateTable('batches').set({ status: 'completed', completed_at: sql`now()` }).where('id', '=', batchId).execute()
  const summary = summarise({ ...batch, status: 'completed' }, items)
  await emitEvent(
    {
      accountId: batch.account_id,
      type: 'batch.completed',
      data: {
        id: batch.id,
        tool: batch.tool,
        status: 'completed',
        total: summary.total,
        done: summary.done,
        failed: summary.failed,
        credits_charged: items.reduce((sum, i) => sum + creditsCharged(i), 0),
        url: batchUrl(batch.id),
        download_url: batchDownloadUrl(batch.id),
      },
    },
    trx,
  )
}

export async function itemsOf(batchId: string, db: DbOrTx) {
  return db
    .selectFrom('tool_jobs')
    .select(['id', 'tool', 'original_name', 'status', 'outcome', 'progress', 'result_id', 'filename', 'error', 'charge_transaction_id', 'refunded', 'account_id'])
    .where('batch_id', '=', batchId)
    .orderBy('batch_position')
    .execute()
}

type ItemRow = Awaited<ReturnType<typeof itemsOf>>[number]
type BatchRow = { id: string; tool: string; total: number; status: 'running' | 'completed'; skipped: unknown }

/** One item as GET /api/batches/<id>/ and the batch screen show it (state: run-state.ts). */
export function itemView(i: ItemRow) {
  const state = runState(i)
  return {
    job_id: i.id,
    name: i.original_name,
    status: i.status,
    state,
    status_text: runStateText(state, i),
    progress: i.progress,
    credits_charged: creditsCharged(i),
    result_url: i.result_id ? resultUrl(i.result_id) : null,
    thumbnail_url: i.result_id ? thumbnailUrl(i.result_id) : null,
    error: i.error,
  }
}

export function summarise(batch: BatchRow, items: ItemRow[]) {
  const views = items.map(itemView)
  return {
    id: batch.id,
    tool: batch.tool as ToolSlug,
    status: batch.status,
    total: batch.total,
    skipped: batch.skipped as SkippedEntry[],
    done: items.filter((i) => i.status === 'succeeded').length,
    failed: items.filter((i) => i.status === 'failed').length,
    /** Of `done`: the face runs that found no face (delivered unchanged, not charged). */
    no_face: views.filter((i) => i.state === 'no_face').length,
    items: views,
  }
}

