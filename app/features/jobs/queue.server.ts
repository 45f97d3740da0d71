// The pg-boss queues of tool runs. A job carries only its tool_jobs id (the upload and options are
// in the row); it is grouped by the paying account, so JOBS_PER_ACCOUNT bounds one account's running
// jobs across every worker. A worker that dies stops its heartbeat and pg-boss hands the job to
// another; after the last retry the job is copied to the dead-letter queue, whose handler records
// the failure and the refund (once, like every outcome).
import { fromKysely, type JobAttempt, type PgBoss } from 'pg-boss'
import type { Transaction } from 'kysely'
import { config } from '~/config.server'
import type { Database } from '~/db/schema'
import { getBoss } from '~/features/queue/boss.server'
import { databaseSingleton } from '~/utils/singleton.server'
import { currentTraceparent } from '~/features/observability/tracing.server'

export const TOOL_JOB_QUEUE = 'tool-run'
export const TOOL_JOB_DEAD_LETTER = 'tool-run-dead'
/** How often a job that lost its worker is retried before it fails for good (and is refunded). */
export const JOB_RETRY_LIMIT = 2

export interface ToolJobData {
  jobId: string
  /** The queuing request's trace context (W3C), when tracing is on: the worker continues that trace. */
  traceparent?: string
}

/** pg-boss started, with the tool queues created (or updated to today's settings), once per process. */
export function toolQueues(): Promise<PgBoss> {
  return databaseSingleton('tool-job-queues', async () => {
    const boss = await getBoss()
    const timeoutSeconds = Math.ceil(config().TOOL_TIMEOUT_MS / 1000)
    const settings = {
      retryLimit: JOB_RETRY_LIMIT,
      retryDelay: 1,
      // The worker stops a run at TOOL_TIMEOUT_MS itself; expiry is the backstop for a stuck one.
      expireInSeconds: timeoutSeconds + 60,
      heartbeatSeconds: config().JOB_HEARTBEAT_SECONDS,
      deleteAfterSeconds: 24 * 3600,
    }
    if (!(await boss.getQueue(TOOL_JOB_DEAD_LETTER))) await boss.createQueue(TOOL_JOB_DEAD_LETTER, { retryLimit: 5, retryDelay: 5 })
    if (await boss.getQueue(TOOL_JOB_QUEUE)) {
      await boss.updateQueue(TOOL_JOB_QUEUE, { ...settings, deadLetter: TOOL_JOB_DEAD_LETTER })
    } else {
      await boss.createQueue(TOOL_JOB_QUEUE, { ...settings, deadLetter: TOOL_JOB_DEAD_LETTER })
    }
    return boss
  })
}

/**
 * pg-boss takes higher priorities first: a single run (someone may be waiting on its answer) goes
 * before batch items already queued (docs/decisions/085).
 */
const PRIORITY = { single: 1, batch: 0 } as const

/** Sends the job inside the caller's transaction: it exists exactly when the charge and the row do. */
export async function sendToolJob(boss: PgBoss, trx: Transaction<Database>, jobId: string, accountId: string, kind: keyof typeof PRIORITY = 'single'): Promise<void> {
  const traceparent = currentTraceparent()
  const data: ToolJobData = traceparent ? { jobId, traceparent } : { jobId }
  await boss.send(TOOL_JOB_QUEUE, data, { id: jobId, group: { id: accountId }, priority: PRIORITY[kind], db: fromKysely(trx) })
}

/** The admitting transaction fetched another job than its own (one queued meanwhile): it rolls back and is sent normally. */
export class NotThisJobError extends Error {
  constructor() {
    super('pg-boss handed out another job than the one just sent')
  }
}

/**
 * In the transaction that has just sent `jobId` (a single run): takes it for this process, active in
 * pg-boss as if a worker had fetched it (docs/decisions/124), or null when pg-boss would not start it
 * now (the account has JOBS_PER_ACCOUNT running). pg-boss's own fetch decides, so its rules hold:
 * the account's share of running jobs, and priority (a single run waiting longer would be
 * handed out first: then NotThisJobError, and the caller's transaction rolls back).
 */
export async function takeJobHere(boss: PgBoss, trx: Transaction<Database>, jobId: string): Promise<JobAttempt | null> {
  const [job] = await boss.fetch<ToolJobData>(TOOL_JOB_QUEUE, {
    batchSize: 1,
    minPriority: PRIORITY.single,
    groupConcurrency: config().JOBS_PER_ACCOUNT,
    db: fromKysely(trx),
  })
  if (!job) return null
  if (job.id !== jobId) throw new NotThisJobError()
  return { id: job.id, retryCount: job.retryCount }
}
