// The worker: takes tool jobs from pg-boss, runs each with its tool's runner, reports progress into
// tool_jobs (throttled) and records the outcome once. WORKER_CONCURRENCY slots per process, each a
// pg-boss worker of its own so a local enqueue can wake an idle one at once (pg-boss polls every
// half second otherwise, for jobs sent by other processes).
//
// What a run's end means for pg-boss: a run that delivered or failed is recorded here and the pg-boss
// job completes (a failed run is not retried: the same input fails the same way). Only a worker that
// disappears (SIGKILL: no more heartbeats) or hands its job back at shutdown makes pg-boss retry.
import { logger } from '~/utils/logger.server'
import { config } from '~/config.server'
import { databaseSingleton, existingSingleton } from '~/utils/singleton.server'
import type { JobAttempt, PgBoss } from 'pg-boss'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { RunTimeoutError } from './errors.server'
import { announceJobEnded, announceShutdown, onJobQueued } from './events.server'
import { claimJob, findJob, releaseJob, saveProgress, type ToolJobInfo } from './jobs.server'
import { runnerFor, tools } from './runners.server'
import { recordDelivered, recordFailed, type ChargeAtOutcome } from './outcome.server'
import { firstProgress, progressOnSteps } from './progress'
import { traceJob } from './trace.server'
import { observeQueueWait } from '~/features/observability/metrics.server'
import { currentTraceparent, inJobSpan, inSpan, recordPastSpan } from '~/features/observability/tracing.server'
import { trace } from '@opentelemetry/api'
import { publishJobStarting } from './lifecycle.server'
import { recordRunTime } from './run-rates.server'
import { mailIfLongRun } from './ready-mail.server'
import { rateVariant } from './run-time'
import { TOOL_JOB_DEAD_LETTER, TOOL_JOB_QUEUE, toolQueues, type ToolJobData } from './queue.server'
import { RunSlots } from './slots'
import { forgetInline, markInline } from './run-path.server'
import { SWEEP_EVERY_MS, sweepLostInlineRuns } from './inline.server'
import { ToolError } from './errors.server'

/** Progress is written at most this often per job (and always when the stage changes). */
const PROGRESS_WRITE_MS = 250
/** A running job checks in this often: it notices a job stopped elsewhere (a request that timed out). */
const CHECK_IN_MS = 2_000
/** The message a run that could not be completed after pg-boss's retries ends with. */
export const LOST_RUN_MESSAGE = 'The run could not be completed. Your credits were refunded; please try again.'
/** An inline run stopped by its process's shutdown (docs/decisions/176): nothing was charged, nothing goes on. */
export const INLINE_INTERRUPTED_MESSAGE = 'The studio restarted before your run ended. Nothing was charged; please send it again.'

interface WorkerState {
  boss: PgBoss
  workerIds: string[]
  /** Runs in progress here, to stop one when its job ends elsewhere. */
  running: Map<string, AbortController>
  stopping: boolean
  unsubscribe: () => void
  /** WORKER_CONCURRENCY: shared by fetched jobs and runs taken where they were admitted. */
  slots: RunSlots
  /** Runs taken where they were admitted (runHere) and inline runs: their hand-back switch and their end, for the drain. */
  here: Map<string, { handBack: AbortController; done: Promise<void> }>
  /** Fetched jobs running here, by job id, and their end: a job handed out again while it runs here waits for it. */
  fetched: Map<string, Promise<void>>
  /** The sweep of inline runs lost with their process (inline.server.ts), stopped at the drain. */
  sweep?: ReturnType<typeof setInterval>
}

/**
 * A claimed job with its upload, as claimJob answers it (or the admitting request holds it).
 * firstProgressSaved: the row's start wrote the first progress already (startJob), so the run does not.
 */
type ClaimedJob = {
  job: ToolJobInfo
  bytes: Buffer
  secondBytes: Buffer | null
  prepared?: unknown
  firstProgressSaved?: boolean
  /** An inline run (docs/decisions/176): no pg-boss job; charged by its outcome, never handed back. */
  inline?: ChargeAtOutcome
}

function state(): Promise<WorkerState> | undefined {
  return existingSingleton<Promise<WorkerState>>('tool-job-worker')
}

/** Starts this process's worker slots (idempotent). Nothing starts when WORKER_CONCURRENCY=0. */
export function startJobWorker(): Promise<WorkerState> | null {
  const concurrency = config().workerConcurrency
  if (concurrency === 0) return null
  return databaseSingleton('tool-job-worker', async () => {
    const boss = await toolQueues()
    const running = new Map<string, AbortController>()
    const workerIds: string[] = []
    const current: WorkerState = { boss, workerIds, running, stopping: false, unsubscribe: () => {}, slots: new RunSlots(concurrency), here: new Map(), fetched: new Map() }
    for (let slot = 0; slot < concurrency; slot++) {
      const id: string = await boss.work<ToolJobData>(
        TOOL_JOB_QUEUE,
        { pollingIntervalSeconds: 0.5, groupConcurrency: config().JOBS_PER_ACCOUNT },
        async ([job]) => {
          if (!job) return
          // A slot of this process (a run taken where it was admitted may hold it for a moment).
          await current.slots.take()
          try {
            // Aborted while it waited for a slot: shutting down, or its claim went (the retry runs it).
            if (job.signal.aborted) throw new Error('handed back before it started', { cause: job.signal.reason })
            const handBack = handBackAtShutdown(current, job.data.jobId, job.signal)
            try {
              await inJobSpan(job.data.traceparent, { 'facet.job.id': job.data.jobId, 'facet.job.path': 'queue' }, () => runJob(current, job.data.jobId, handBack.signal))
            } finally {
              // pg-boss aborts the signal on every ordinary completion too, once the handler has returned.
              handBack.detach()
            }
          } finally {
            current.slots.give()
          }
          // Fetch again at once: there may be more waiting.
          boss.notifyWorker(id)
        },
      )
      workerIds.push(id)
    }
    await boss.work<ToolJobData>(TOOL_JOB_DEAD_LETTER, { pollingIntervalSeconds: 5 }, async ([job]) => {
      if (job) await recordLostRun(job.data.jobId)
    })
    current.unsubscribe = onJobQueued(() => {
      for (const id of workerIds) boss.notifyWorker(id)
    })
    // Inline runs lost with their process (any process's): ended at start and every SWEEP_EVERY_MS.
    const sweep = () => void sweepLostInlineRuns().catch((error: Error) => logger.warn({ err: error.message }, 'lost inline runs not swept'))
    sweep()
    current.sweep = setInterval(sweep, SWEEP_EVERY_MS)
    current.sweep.unref()
    logger.info({ concurrency, jobsPerAccount: config().JOBS_PER_ACCOUNT }, 'tool job worker started')
    return current
  })
}

/** Whether this process's worker takes jobs now: not started, running, or draining (shutting down). */
export async function jobWorkerState(): Promise<'not started' | 'running' | 'draining'> {
  const started = state()
  if (!started) return 'not started'
  const current = await started.catch(() => null)
  if (!current) return 'not started'
  return current.stopping ? 'draining' : 'running'
}

/** The number of job slots this process runs (0: web only). */
export function localWorkerSlots(): number {
  return config().workerConcurrency
}

/** Stops a run of this process whose job ended elsewhere (timed out). */
export function abortLocalRun(jobId: string): void {
  void state()?.then((s) => s.running.get(jobId)?.abort())
}

/**
 * A slot for running a synchronous submission where it was admitted (docs/decisions/124): when this
 * process runs jobs, is not draining and has a slot free that no fetched job waits for. The
 * admitting transaction then takes the job's pg-boss job (takeJobHere); `release` gives the slot
 * back when it did not, `run` runs the job here and gives it back at the end.
 */
export async function reserveSlotHere(): Promise<{
  run: (claimed: ClaimedJob, attempt: JobAttempt) => Promise<void>
  /** Runs the job inline (docs/decisions/176) in this slot. */
  runInline: (claimed: ClaimedJob) => Promise<void>
  release: () => void
} | null> {
  const current = await (startJobWorker() ?? Promise.resolve(null)).catch(() => null)
  if (!current || current.stopping || !current.slots.tryTake()) return null
  let given = false
  const release = () => {
    if (!given) current.slots.give()
    given = true
  }
  return {
    release,
    run: (claimed, attempt) => runHere(current, claimed, attempt).finally(release),
    runInline: (claimed) => runInline(current, claimed).finally(release),
  }
}

/**
 * An inline run (docs/decisions/176): the worker's own run function on the request's upload, with no
 * pg-boss job, no heartbeat and no completion. Its outcome charges it. Past the drain's grace it is
 * stopped and failed, unpaid; a process that dies leaves the row running, which the sweep ends.
 */
async function runInline(worker: WorkerState, claimed: ClaimedJob): Promise<void> {
  const jobId = claimed.job.id
  const handBack = new AbortController()
  const traceparent = currentTraceparent()
  markInline(jobId)
  const done = (async () => {
    try {
      await inJobSpan(traceparent, { 'facet.job.id': jobId, 'facet.job.path': 'inline' }, () => runClaimed(worker, claimed, handBack.signal))
    } catch (error) {
      // The outcome could not be written (the database is gone): the row stays running, the sweep ends it unpaid.
      logger.error({ err: error, jobId }, 'inline run ended outside its outcome')
    } finally {
      forgetInline(jobId)
      worker.here.delete(jobId)
    }
  })()
  worker.here.set(jobId, { handBack, done })
  return done
}

/**
 * A run taken where it was admitted: the upload from the request's memory, no fetch and no claim
 * read. pg-boss holds its job active (taken in the admitting transaction); this process keeps its
 * heartbeat and completes it after the outcome. A process that dies stops the heartbeat and pg-boss
 * hands the job to another worker, as for a fetched job (docs/decisions/124).
 */
async function runHere(worker: WorkerState, claimed: ClaimedJob, attempt: JobAttempt): Promise<void> {
  const jobId = claimed.job.id
  const handBack = new AbortController()
  const heartbeat = setInterval(
    () => void worker.boss.touch(TOOL_JOB_QUEUE, attempt).catch((error: Error) => logger.warn({ err: error.message, jobId }, 'heartbeat not sent')),
    (config().JOB_HEARTBEAT_SECONDS * 1000) / 2,
  )
  const traceparent = currentTraceparent()
  const done = (async () => {
    try {
      await inJobSpan(traceparent, { 'facet.job.id': jobId, 'facet.job.path': 'queue' }, () => runClaimed(worker, claimed, handBack.signal))
      // The waiting request's answer first (on PGlite statements queue one behind the other).
      await new Promise((resolve) => setImmediate(resolve))
      await worker.boss.complete(TOOL_JOB_QUEUE, attempt)
    } catch (error) {
      // Handed back at shutdown (the row is queued again): pg-boss retries it on another worker. A
      // fail that does not arrive leaves the job active without heartbeats, which pg-boss retries too.
      await worker.boss.fail(TOOL_JOB_QUEUE, attempt).catch(() => {})
      if (!handBack.signal.aborted) logger.error({ err: error, jobId }, 'run taken here failed outside its outcome')
    } finally {
      clearInterval(heartbeat)
      worker.here.delete(jobId)
    }
  })()
  worker.here.set(jobId, { handBack, done })
  return done
}

/**
 * What a fetched job's run stops on: pg-boss's signal for the job, when this process is shutting down
 * (the attempt goes back to the queue). pg-boss also aborts that signal when its heartbeat finds the
 * claim gone: its supervision took the job for lost, a heartbeat it did not see in time, and will hand
 * it out again. The run is alive here, though (on PGlite, whose clock is this process's, any forward
 * step of the wall clock past the heartbeat does this: docs/decisions/177 and 194), and its outcome is
 * recorded once, by whichever run ends first: so it goes on. Stopped, its work would start again from
 * nothing; going on, the retry finds the job ended and does nothing.
 */
function handBackAtShutdown(worker: WorkerState, jobId: string, claim: AbortSignal): { signal: AbortSignal; detach: () => void } {
  const handBack = new AbortController()
  const onAbort = () => {
    if (worker.stopping) handBack.abort(claim.reason)
    else logger.warn({ jobId, reason: String((claim.reason as Error | undefined)?.message ?? claim.reason) }, CLAIM_LOST_LOG)
  }
  claim.addEventListener('abort', onAbort, { once: true })
  return { signal: handBack.signal, detach: () => claim.removeEventListener('abort', onAbort) }
}

/** Logged when pg-boss takes a live run's claim away and the run goes on. */
export const CLAIM_LOST_LOG = 'pg-boss took the claim of a live run away: the run goes on, its outcome is recorded once'

async function runJob(worker: WorkerState, jobId: string, handBack: AbortSignal): Promise<void> {
  traceJob(jobId, 'fetched')
  // Handed out again while this process still runs it (its claim was taken away, above): that run is
  // alive, so this attempt waits for its end instead of running the work a second time.
  const live = worker.fetched.get(jobId) ?? worker.here.get(jobId)?.done
  if (live) {
    await live
    // That run was handed back at shutdown rather than ended: this attempt goes back to pg-boss too, or the
    // job would be completed there while its row waits in the queue.
    const after = await findJob(jobId)
    if (after && (after.status === 'queued' || after.status === 'running')) throw new Error('the live run of this job was handed back')
    return
  }
  // Registered before the claim's first await: a second attempt arriving meanwhile finds it. No other run
  // of this job can replace the entry while it stands (it would wait above), so the end removes it.
  const run = (async () => {
    const claimed = await claimJob(jobId)
    if (!claimed) return // ended already (its outcome is recorded): nothing to run
    await runClaimed(worker, claimed, handBack)
  })()
  worker.fetched.set(jobId, run.catch(() => {}))
  try {
    await run
  } finally {
    worker.fetched.delete(jobId)
  }
}

async function runClaimed(worker: WorkerState, claimed: ClaimedJob, handBack: AbortSignal): Promise<void> {
  const { bytes, secondBytes, prepared } = claimed
  let { job } = claimed
  const jobId = job.id
  // A subscriber may charge the job now (a batch item is paid when its run starts: docs/decisions/055)
  // or refuse it: refused, it fails at once, unpaid.
  const start = await publishJobStarting(job)
  if ('refused' in start) {
    const ended = await recordFailed(job, { status: start.refused.status, message: start.refused.message, outcome: 'rejected' }, null)
    announceJobEnded({ jobId, job: ended ?? undefined })
    return
  }
  job = { ...job, charge_transaction_id: start.chargeTransactionId }
  traceJob(jobId, 'claimed')
  // Both stamps are the database's clock: no skew between the machine that queued and this one. An
  // inline run never waited in a queue.
  if (job.started_at && !claimed.inline) {
    const [queued, picked] = [new Date(job.created_at), new Date(job.started_at)]
    observeQueueWait(job.tool, (picked.getTime() - queued.getTime()) / 1000)
    recordPastSpan('queue wait', queued, picked, { 'facet.tool': job.tool })
  }
  trace.getActiveSpan()?.setAttribute('facet.tool', job.tool)
  const tool = job.tool as ToolSlug
  const runner = runnerFor(tool)
  const controller = new AbortController()
  worker.running.set(jobId, controller)
  const started = performance.now()
  const timeoutMs = config().TOOL_TIMEOUT_MS
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const handedBack = () => controller.abort()
  handBack.addEventListener('abort', handedBack, { once: true })

  // Progress: the newest report is written when the last write is PROGRESS_WRITE_MS old or the stage
  // changes; a write that finds the job ended stops the run. Ages are read on the monotonic clock: a
  // wall clock stepped back would stop the writes and the check-ins until it caught up (docs/decisions/177).
  let lastWrite = 0
  let lastStage: string | null = null
  let pending: Promise<void> = Promise.resolve()
  const write = (percent: number, stage: string) => {
    lastWrite = performance.now()
    lastStage = stage
    pending = pending
      .then(() => saveProgress(jobId, percent, stage))
      .then((alive) => {
        if (!alive) controller.abort()
      })
      .catch((error: Error) => logger.warn({ err: error.message, jobId }, 'progress not saved'))
  }
  const steps = TOOLS[tool].steps
  const report = (fraction: number, stage?: string) => {
    const step = progressOnSteps(steps, fraction, stage)
    if (step.message !== lastStage || performance.now() - lastWrite >= PROGRESS_WRITE_MS) write(step.percent, step.message)
  }
  const first = firstProgress(steps)
  if (claimed.firstProgressSaved) {
    lastWrite = performance.now()
    lastStage = first.message
  } else {
    write(first.percent, first.message)
  }
  const checkIn = setInterval(() => {
    if (performance.now() - lastWrite >= CHECK_IN_MS) {
      pending = pending
        .then(() => findJob(jobId))
        .then((current) => {
          if (!current || current.status !== 'running') controller.abort()
        })
        .catch(() => {})
    }
  }, CHECK_IN_MS)

  try {
    try {
      const ran = await inSpan('run', { 'facet.tool': tool }, () =>
        runner.run({ bytes, secondBytes, prepared, options: job.options as Parameters<typeof runner.run>[0]['options'], signal: controller.signal, progress: report }),
      )
      const delivered = job.test_mode ? await tools().capTestResult(ran) : ran
      traceJob(jobId, 'ran')
      await pending
      const runMs = performance.now() - started
      const ended = await inSpan('outcome transaction', { 'facet.outcome': 'delivered' }, () => recordDelivered(job, runner, delivered, runMs, claimed.inline))
      traceJob(jobId, 'recorded')
      announceJobEnded(ended ? { jobId, job: ended, delivered } : { jobId })
      // The next estimate learns from this run (after the answer is out: nobody waits on it).
      if (ended) {
        await recordRunTime(measured(job, runMs))
        await mailIfLongRun(ended).catch((error: Error) => logger.warn({ err: error.message, jobId }, 'result mail not sent'))
      }
    } catch (thrown) {
      await pending
      // Stopped by the drain: through pg-boss's signal, or (a run whose claim pg-boss took earlier, its
      // signal spent then) by the drain's own stop of what still runs past the grace.
      const interrupted = !timedOut && (handBack.aborted || (worker.stopping && controller.signal.aborted))
      if (interrupted && !claimed.inline) {
        // Shutting down: pg-boss failed this attempt already, so the job goes back to the queue for
        // another worker; the row says so too.
        await releaseJob(jobId)
        throw new Error('handed back at shutdown', { cause: thrown })
      }
      // An inline run has no queue to go back to: stopped at shutdown, it fails unpaid.
      const error = timedOut
        ? new RunTimeoutError(timeoutMs)
        : interrupted
          ? new ToolError(503, INLINE_INTERRUPTED_MESSAGE, { outcome: 'failed' })
          : tools().failureOf(thrown, tool)
      const runMs = performance.now() - started
      const ended = await inSpan('outcome transaction', { 'facet.outcome': 'failed' }, () =>
        recordFailed(job, { status: error.status, message: error.message, outcome: error.outcome }, runMs),
      )
      announceJobEnded({ jobId, job: ended ?? undefined })
      // A run stopped at the limit would have taken at least this long: the estimate rises to it.
      if (ended && timedOut) await recordRunTime({ ...measured(job, runMs), stopped: true })
    }
  } finally {
    clearTimeout(timer)
    clearInterval(checkIn)
    handBack.removeEventListener('abort', handedBack)
    worker.running.delete(jobId)
  }
}

function measured(job: { tool: string; options: unknown; input_width: number | null; input_height: number | null }, runMs: number) {
  const tool = job.tool as ToolSlug
  return { tool, variant: rateVariant(tool, job.options), width: job.input_width, height: job.input_height, runMs }
}

/** pg-boss gave up on the job (its workers kept dying): fail it and refund, once. */
async function recordLostRun(jobId: string): Promise<void> {
  const job = await findJob(jobId)
  if (!job) return
  const ended = await recordFailed(job, { status: 503, message: LOST_RUN_MESSAGE }, null)
  if (ended) logger.warn({ jobId, attempts: job.attempts }, 'tool job lost its workers: failed and refunded')
  announceJobEnded({ jobId })
}

/**
 * SIGTERM: stop taking jobs, let the running ones finish within `timeoutMs`, hand the rest back to
 * the queue (pg-boss fails the attempt, so another worker retries it), then stop pg-boss; the
 * requests still waiting for a job then answer with its URL (wait.server.ts, 503 + Retry-After).
 */
export async function drainJobWorker(timeoutMs: number): Promise<void> {
  // On the monotonic clock, as its listeners read it (wait.server.ts): a wall clock that steps mid-drain moves nothing.
  const deadline = performance.now() + timeoutMs
  const started = state()
  const current = started ? await started : null
  if (current) {
    current.stopping = true
    current.unsubscribe()
    clearInterval(current.sweep)
  }
  const { stopBoss } = await import('~/features/queue/boss.server')
  // Runs taken where they were admitted get the same grace; past it they are handed back like the rest.
  const here = [...(current?.here.values() ?? [])]
  const handBackHere = setTimeout(() => here.forEach((run) => run.handBack.abort()), Math.max(0, deadline - performance.now()))
  await Promise.all([stopBoss({ timeoutMs }), ...here.map((run) => run.done)])
  clearTimeout(handBackHere)
  // Runs still going after the grace were failed back to pg-boss (it retries them elsewhere); their
  // rows say so before this process exits.
  for (const [jobId, controller] of current?.running ?? []) {
    controller.abort()
    await releaseJob(jobId).catch((error: Error) => logger.warn({ err: error.message, jobId }, 'could not hand the job back'))
  }
  // Requests of this process still waiting for a job answer before it exits: with the job's URL
  // when it went back to the queue (or at the deadline, for one running in another process).
  announceShutdown(deadline)
}
