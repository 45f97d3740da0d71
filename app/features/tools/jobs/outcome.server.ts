// A job's outcome, recorded exactly once whoever reports it (the worker that ran it, a request that
// gave up waiting, the dead-letter handler after pg-boss's last retry): in one transaction, the
// conditional update of tool_jobs from queued/running, the stored result, the refund and the
// tool_runs row. The first
// writer wins; everyone after it writes nothing.
import { randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import { executeTx, getDb } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { refund } from '~/features/credits/ledger.server'
import { TOOLS, type ToolSlug } from '../catalog'
import { storeResult } from '../results.server'
import type { RunOutcome } from '../errors.server'
import type { Delivered, ToolRunner } from '../runners/types'
import { insertToolRun } from '../runs.server'
import { finishJob, type ToolJobInfo } from './jobs.server'

/** The API key the run was charged through (the charge's ledger row carries it), for tool_runs. */
async function chargedKey(trx: Transaction<Database>, chargeTransactionId: number): Promise<string | null> {
  const row = await trx.selectFrom('credit_transactions').select('api_key_id').where('id', '=', chargeTransactionId).executeTakeFirst()
  return row?.api_key_id ?? null
}

export function failureRefundReason(tool: ToolSlug): string {
  return `Refund: ${TOOLS[tool].name} run failed`
}

/** The run delivered: keep the result (24 h), refund when the runner says nothing is owed (no face). */
export async function recordDelivered(
  job: ToolJobInfo,
  runner: ToolRunner<unknown>,
  delivered: Delivered,
  runMs: number,
): Promise<ToolJobInfo | null> {
  const refundReason = runner.refundReason?.(delivered) ?? null
  const notes = [...((job.notes as string[] | null) ?? []), ...(delivered.note ? [delivered.note] : [])]
  const note = notes.join(' ') || null
  const filename = runner.outputName(job.options, job.original_name)
  const resultId = randomUUID()
  const ended = await executeTx(getDb(), async (trx) => {
    const finished = await finishJob(
      job.id,
      {
        outcome: refundReason ? 'no_face' : 'success',
        refunded: refundReason !== null,
        resultId,
        filename,
        facesFound: delivered.facesFound ?? null,
        gfpganAvailable: delivered.gfpganAvailable ?? null,
        note,
      },
      trx,
    )
    if (!finished) return null
    await storeResult(
      {
        id: resultId,
        ownerAccountId: job.account_id,
        bytes: delivered.bytes,
        contentType: delivered.contentType,
        filename,
        runDetails: { facesFound: delivered.facesFound, gfpganAvailable: delivered.gfpganAvailable, note: note ?? undefined },
      },
      trx,
    )
    if (refundReason) await refund(job.charge_transaction_id, refundReason, trx)
    await insertToolRun(
      {
        tool: job.tool as ToolSlug,
        accountId: job.account_id,
        apiKeyId: await chargedKey(trx, job.charge_transaction_id),
        outcome: finished.outcome ?? 'success',
        durationMs: runMs,
        modelMs: delivered.modelMs,
        inputBytes: job.input_bytes,
        inputWidth: job.input_width,
        inputHeight: job.input_height,
        outputBytes: delivered.bytes.byteLength,
      },
      trx,
    )
    return finished
  })
  return ended
}

/** The run failed (or was stopped): the charge is given back, once. */
export async function recordFailed(
  job: Pick<ToolJobInfo, 'id' | 'tool' | 'account_id' | 'charge_transaction_id' | 'input_bytes' | 'input_width' | 'input_height'>,
  failure: { status: number; message: string; outcome?: RunOutcome },
  runMs: number | null,
): Promise<ToolJobInfo | null> {
  const ended = await executeTx(getDb(), async (trx) => {
    const finished = await finishJob(
      job.id,
      { outcome: 'failed', refunded: true, error: failure.message, errorStatus: failure.status },
      trx,
    )
    if (!finished) return null
    await refund(job.charge_transaction_id, failureRefundReason(job.tool as ToolSlug), trx)
    await insertToolRun(
      {
        tool: job.tool as ToolSlug,
        accountId: job.account_id,
        apiKeyId: await chargedKey(trx, job.charge_transaction_id),
        // A refusal found only by the worker (a file that does not decode) is still 'rejected'.
        outcome: failure.outcome ?? 'failed',
        error: failure.message,
        durationMs: runMs ?? 0,
        inputBytes: job.input_bytes,
        inputWidth: job.input_width,
        inputHeight: job.input_height,
      },
      trx,
    )
    return finished
  })
  return ended
}
