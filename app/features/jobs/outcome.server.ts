// A job's outcome, recorded exactly once whoever reports it (the worker that ran it, a request that
// gave up waiting, the dead-letter handler after pg-boss's last retry): in one transaction, the
// conditional update of tool_jobs from queued/running, the stored result, the refund and the
// tool_runs row, and the "job ended" event its subscribers (webhooks, batches) hear inside that same
// transaction (lifecycle.server.ts). The first writer wins; everyone after it writes nothing.
import { randomUUID } from 'node:crypto'
import { executeTx, getDb } from '~/db/db.server'
import { refund } from '~/features/credits/ledger.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { resultExpiry, storeResult } from './results.server'
import type { RunOutcome } from './errors.server'
import type { Delivered, ToolRunner } from './runner'
import { insertToolRun } from './runs.server'
import { traceJob } from './trace.server'
import { finishJob, type ToolJobInfo } from './jobs.server'
import { prepareJobSubscribers, publishJobEnded } from './lifecycle.server'
import { countToolRun } from '~/features/observability/metrics.server'
import { runnerFor, tools } from './runners.server'
import { chargeRun, type RunCharge } from '~/features/account/charge.server'
import { ToolError } from './errors.server'
import { runPath, type RunPath } from './run-path.server'
import { storeFailure, storeSucceeded } from './storage-health.server'

/**
 * The run metrics, once the outcome committed (a rolled-back outcome counted nothing). The model is
 * the one the run delivered with; a failed run names the one its tool would choose.
 */
async function countRun(tool: string, outcome: RunOutcome, path: RunPath, runMs: number | null, delivered?: string | null): Promise<void> {
  const model = delivered ?? (await runnerFor(tool as ToolSlug).model().catch(() => 'unknown'))
  countToolRun({ tool, model, outcome, path, runSeconds: runMs === null ? null : runMs / 1000 })
}

/**
 * An inline run's charge, taken by its outcome (docs/decisions/176). `run` is null for a test key's
 * run (never charged); `balance` is set by the outcome that charged: the balance the answer reports.
 */
export interface ChargeAtOutcome {
  run: RunCharge | null
  balance?: number
}

/** The outcome found the job ended by someone else: its transaction rolls back (the charge with it). */
class EndedElsewhere extends Error {}

export function failureRefundReason(tool: ToolSlug): string {
  return `Refund: ${TOOLS[tool].name} run failed`
}

/** The run delivered: keep the result (24 h), refund when the runner says nothing is owed (no face). */
export async function recordDelivered(
  job: ToolJobInfo,
  runner: ToolRunner<unknown>,
  delivered: Delivered,
  runMs: number,
  /** An inline run: charged here, in this transaction, unless nothing is owed (no face). */
  chargeAtOutcome?: ChargeAtOutcome,
): Promise<ToolJobInfo | null> {
  const refundReason = runner.refundReason?.(delivered) ?? null
  const notes = [...((job.notes as string[] | null) ?? []), ...(delivered.note ? [delivered.note] : [])]
  const note = notes.join(' ') || null
  // The extension follows what was delivered (a `format=auto` result is known only now).
  const filename = tools().nameForType(runner.outputName(job.options, job.original_name), delivered.contentType)
  const resultId = randomUUID()
  const storedAt = new Date()
  await prepareJobSubscribers()
  const ended = await executeTx(getDb(), async (trx) => {
    // Delivered once and charged once, or not charged: a refused charge (short of credits since the
    // run was admitted, a team cap reached) fails the run, and the result is not kept.
    const charged = chargeAtOutcome?.run && !refundReason ? await chargeRun(chargeAtOutcome.run, trx) : null
    if (charged && !charged.ok) throw new ToolError(charged.status, charged.message, { outcome: 'rejected' })
    const finished = await finishJob(
      job.id,
      {
        outcome: refundReason ? 'no_face' : 'success',
        refunded: refundReason !== null,
        ...(charged?.ok ? { chargeTransactionId: charged.transactionId } : {}),
        resultId,
        filename,
        facesFound: delivered.facesFound ?? null,
        gfpganAvailable: delivered.gfpganAvailable ?? null,
        note,
        model: delivered.model ?? null,
        layout: delivered.layout ?? null,
      },
      trx,
    )
    if (!finished) {
      if (charged) throw new EndedElsewhere()
      return null
    }
    if (charged?.ok && chargeAtOutcome) chargeAtOutcome.balance = charged.balance
    await storeResult(
      {
        id: resultId,
        ownerAccountId: job.account_id,
        bytes: delivered.bytes,
        contentType: delivered.contentType,
        filename,
        runDetails: { facesFound: delivered.facesFound, gfpganAvailable: delivered.gfpganAvailable, note: note ?? undefined, model: delivered.model ?? undefined },
        now: storedAt,
      },
      trx,
    )
    // What a correction re-renders from, kept apart from the result and expiring with it (decision 157).
    if (delivered.edit) {
      await tools().storeKept({ jobId: job.id, accountId: job.account_id, kept: delivered.edit, expiresAt: resultExpiry(storedAt) }, trx)
    }
    traceJob(job.id, 'stored')
    if (refundReason && job.charge_transaction_id !== null) await refund(job.charge_transaction_id, refundReason, trx)
    await insertToolRun(
      {
        tool: job.tool as ToolSlug,
        accountId: job.account_id,
        apiKeyId: job.api_key_id,
        outcome: finished.outcome ?? 'success',
        durationMs: runMs,
        modelMs: delivered.modelMs,
        inputBytes: job.input_bytes,
        inputWidth: job.input_width,
        inputHeight: job.input_height,
        outputBytes: delivered.bytes.byteLength,
        model: delivered.model ?? null,
      },
      trx,
    )
    // Heard by the webhooks (job.succeeded / job.failed) and a batch's completion: lifecycle.server.ts.
    await publishJobEnded(finished, trx)
    return finished
  }).catch((error: unknown) => {
    if (error instanceof EndedElsewhere) return null
    // A full disk (the result is the transaction's biggest write): the run fails with that reason, refunded.
    throw storeFailure(error) ?? error
  })
  if (ended) storeSucceeded()
  if (ended) await countRun(job.tool, ended.outcome ?? 'success', runPath(job.id), runMs, delivered.model)
  return ended
}

/** The run failed (or was stopped): the charge is given back, once. */
export async function recordFailed(
  job: Pick<ToolJobInfo, 'id' | 'tool' | 'account_id' | 'charge_transaction_id' | 'api_key_id' | 'input_bytes' | 'input_width' | 'input_height'>,
  failure: { status: number; message: string; outcome?: RunOutcome },
  runMs: number | null,
  /** The path the run took, when this process did not run it (the sweep of lost inline runs). */
  path: RunPath = runPath(job.id),
): Promise<ToolJobInfo | null> {
  await prepareJobSubscribers()
  const ended = await executeTx(getDb(), async (trx) => {
    const finished = await finishJob(
      job.id,
      { outcome: 'failed', refunded: true, error: failure.message, errorStatus: failure.status },
      trx,
    )
    if (!finished) return null
    if (job.charge_transaction_id !== null) await refund(job.charge_transaction_id, failureRefundReason(job.tool as ToolSlug), trx)
    await insertToolRun(
      {
        tool: job.tool as ToolSlug,
        accountId: job.account_id,
        apiKeyId: job.api_key_id,
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
    // Heard by the webhooks (job.succeeded / job.failed) and a batch's completion: lifecycle.server.ts.
    await publishJobEnded(finished, trx)
    return finished
  })
  if (ended) await countRun(job.tool, failure.outcome ?? 'failed', path, runMs)
  return ended
}
