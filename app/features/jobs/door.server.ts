// The job platform's front door: how work comes in, single runs and batches alike. One order for every
// admission, in the transaction that writes the work: the rows inserted, the admission decided under its
// lock (admission.server.ts: the queue's limits, or an inline run's share), then the runnable rows sent
// to pg-boss. A single run's charge is written first in that same transaction (a batch item is charged
// when a worker starts it). Callers (the tools' request side, batches) go through here, not through the
// platform's rooms: the queue, the worker, the rows.
import { createHash } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { PgBoss } from 'pg-boss'
import { executeTx, getDb } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import type { Caller } from '~/features/account/caller.server'
import { chargeRun, memberCap, type RunCharge } from '~/features/account/charge.server'
import { getBalance } from '~/features/credits/ledger.server'
import { guestShortOfCredits } from '~/features/credits/visitor.server'
import { ToolError } from './errors.server'
import type { Inspected } from './runner'
import { admitInline, admitInTransaction, InlineShareTakenError, type QueuePool } from './admission.server'
import { announceJobQueued } from './events.server'
import { findJobByKey, finishJob, insertJob, startJob, type NewToolJob, type ToolJobInfo } from './jobs.server'
import type { ChargeAtOutcome } from './outcome.server'
import { firstProgress } from './progress'
import { NotThisJobError, sendToolJob, takeJobHere, toolQueues } from './queue.server'
import { runsInline } from './inline.server'
import { traceJob } from './trace.server'
import { reserveSlotHere, startJobWorker } from './worker.server'

// What a caller of the door reads of the platform besides admitting (the advice before an upload, a
// job's charge, the events it may hear, the refusal idiom, the results store), so that it needs the door
// and the client-safe run states, not the platform's rooms.
export { checkRoom } from './admission.server'
export { badRequest, tooLarge, ToolError } from './errors.server'
export { creditsCharged, type ToolJobInfo } from './jobs.server'
export type { JobSubscriber, StartVerdict } from './lifecycle.server'
export { readResult } from './results.server'
export { resultUrl } from './view'

export const KEY_REUSED_MESSAGE =
  'This Idempotency-Key was used for a different request (another file, tool or options). Send a new key.'

/** How work enters: a single run through the queue, a batch's items (their own pool), or a single run inline (176). */
export type Entry = QueuePool | 'inline'

export interface RunToAdmit {
  job: NewToolJob
  /** A batch file its tool's checks refused: inserted ended (failed, never charged), not sent, not counted. */
  refused?: ToolError
}

/**
 * Before an admitting transaction: pg-boss up and this process's worker started. On PGlite pg-boss's
 * own queries would wait for the transaction's lock.
 */
export async function openDoor(): Promise<PgBoss> {
  const boss = await toolQueues()
  await startJobWorker()
  return boss
}

/**
 * THE admission, in the caller's transaction (with whatever must commit with it: a charge, a batch's
 * row): insert every row, decide under the admission lock (past a limit or a share it throws, and the
 * whole transaction rolls back), then send the runnable rows to the queue. An inline run is inserted
 * running and never sent. All rows are one account's.
 */
export async function admitRuns(trx: Transaction<Database>, boss: PgBoss | null, entry: Entry, runs: RunToAdmit[]): Promise<ToolJobInfo[]> {
  const accountId = runs[0]?.job.accountId
  if (!accountId) return []
  const inserted: ToolJobInfo[] = []
  for (const run of runs) {
    const row = entry === 'inline' ? { ...run.job, inline: { first: firstProgress(TOOLS[run.job.tool].steps) } } : run.job
    inserted.push(await insertJob(row, trx))
    if (entry !== 'batch') traceJob(run.job.id, 'inserted')
    if (run.refused) {
      await finishJob(run.job.id, { outcome: 'failed', refunded: false, error: run.refused.message, errorStatus: run.refused.status }, trx)
    }
  }
  const admitted = runs.filter((run) => !run.refused)
  if (entry === 'inline') {
    // The account's share of running runs (JOBS_PER_ACCOUNT), as pg-boss keeps it for queued ones.
    await admitInline(trx, accountId)
    return inserted
  }
  if (admitted.length === 0) return inserted
  // Past the queue's limit or the account's share: refused, and everything written rolls back.
  await admitInTransaction(trx, entry, accountId, admitted.length)
  if (!boss) throw new Error('admitRuns: the queue is needed to send runs (openDoor)')
  for (const run of admitted) await sendToolJob(boss, trx, run.job.id, accountId, entry)
  return inserted
}

/** After the admitting transaction committed: wake the workers (this process's at once, by event). */
export function runsQueued(): void {
  announceJobQueued()
}

/** The same request (tool, options, file) always gives the same fingerprint. */
export function requestFingerprint(tool: ToolSlug, options: unknown, bytes: Buffer): string {
  const file = createHash('sha256').update(bytes).digest('hex')
  return createHash('sha256').update(`${tool}\0${JSON.stringify(options ?? {})}\0${file}`).digest('hex')
}

/**
 * Whose Idempotency-Key it is (decision 081): keys live in the paying account (a team's, when it
 * pays), per environment and per credential, as Stripe scopes them per account and mode. The same
 * key from a test key and then a live key, from two API keys, or from two members of one team, is
 * two requests: each runs (and a live run is charged); a replay never crosses that line.
 */
export function idempotencyScope(caller: Caller, testMode: boolean): string {
  const credential = caller.apiKey ? `key:${caller.apiKey.id}` : caller.userId ? `user:${caller.userId}` : 'visitor'
  return `${testMode ? 'test' : 'live'}:${credential}`
}

/** A repeated Idempotency-Key: the job it named, if it is this same request. */
function checkRepeat(existing: ToolJobInfo, fingerprint: string): void {
  if (existing.request_fingerprint !== fingerprint) throw new ToolError(422, KEY_REUSED_MESSAGE)
}

/** The job an Idempotency-Key already names for this payer, when it is this same request (else a 422 refusal). */
export async function findRepeat(payer: Caller, testMode: boolean, key: string, fingerprint: string): Promise<ToolJobInfo | null> {
  const existing = await findJobByKey(payer.accountId, idempotencyScope(payer, testMode), key)
  if (existing) checkRepeat(existing, fingerprint)
  return existing ?? null
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505'
}

/** One single run at the door: who pays, what it costs, and the row to write (its charge is added here). */
export interface SingleRun {
  payer: Caller
  cost: number
  testMode: boolean
  /** The balance read when the caller was resolved (null: not known). */
  balance: number | null
  job: Omit<NewToolJob, 'chargeTransactionId'>
  /** Its bytes and what the checks prepared, for a run here (in memory only). */
  inspected: Inspected
  /** A synchronous submission: run it here when this process can (124), inline when short (176). */
  runHere: boolean
  /** The run's expected time (null: not estimated). */
  expectedMs: number | null
}

export interface AdmittedRun {
  job: ToolJobInfo
  /** The balance after the charge (an inline run: the one read at the door). */
  remaining: number
  /** True when the Idempotency-Key named a job that already existed (the same key sent twice at once). */
  replayed: boolean
  /** Run it here (124) or inline (176): call once, after the wait for its end is set up. */
  runHere?: () => Promise<void>
  /** An inline run (176): its charge, taken by the outcome, and the balance it left. */
  inline?: ChargeAtOutcome
}

/** Whether a run leaves a team member within their monthly cap, as read now (the charge checks again under lock). */
async function withinMemberCap(charge: RunCharge): Promise<boolean> {
  if (charge.teamId === null) return true
  const cap = await memberCap(charge.accountId, charge.userId, getDb())
  return cap === null || cap.used + charge.amount <= cap.cap
}

/**
 * A single run through the door: inline when short, affordable as far as the balance read at the door
 * knows, and this process has a slot (176); else charged, admitted and sent in one transaction, and
 * taken here when this process can (124). The same key sent twice at once finds the first one's job.
 */
export async function admitSingleRun(run: SingleRun): Promise<AdmittedRun> {
  const { payer, job: row, testMode, cost } = run
  const definition = TOOLS[row.tool]
  const charge: RunCharge = {
    accountId: payer.accountId,
    amount: cost,
    toolSlug: definition.ledgerSlug,
    idempotencyKey: `job:${row.id}`,
    description: definition.name,
    apiKeyId: payer.apiKey?.id ?? null,
    userId: payer.userId,
    teamId: payer.teamId,
  }
  const boss = await openDoor()
  // A slot of this process for running it here, taken before the transaction and given back unless
  // the transaction took the job.
  let slot = run.runHere ? await reserveSlotHere() : null
  const claimed = (job: ToolJobInfo) => ({ job, bytes: row.bytes, secondBytes: row.secondBytes ?? null, prepared: run.inspected.prepared, firstProgressSaved: true })
  // The same key sent twice at once: one insert wins, the other's charge (if any) rolled back with it.
  const sameKeySentTwice = async (error: unknown): Promise<AdmittedRun | null> => {
    if (!row.idempotencyKey || !isUniqueViolation(error)) return null
    const existing = await findRepeat(payer, testMode, row.idempotencyKey, row.fingerprint)
    if (!existing) return null
    return { job: existing, remaining: await getBalance(payer.accountId), replayed: true }
  }

  // Inline (176) when short, with a slot of this process, and affordable as far as the balance and a team
  // member's monthly cap read at the door know (a run that cannot pay, or would pass the cap, is refused by
  // the queue path's charge, with its own words and status; one whose balance went meanwhile fails at its
  // outcome, unpaid).
  const affordable = testMode || (run.balance !== null && run.balance >= cost && (await withinMemberCap(charge)))
  if (slot && runsInline(run.expectedMs) && affordable) {
    const inline: ChargeAtOutcome = { run: testMode ? null : charge }
    try {
      const [job] = await executeTx(getDb(), (trx) => admitRuns(trx, null, 'inline', [{ job: { ...row, chargeTransactionId: null } }]))
      traceJob(row.id, 'committed')
      const here = slot
      return { job: job!, remaining: run.balance!, replayed: false, inline, runHere: () => here.runInline({ ...claimed(job!), inline }) }
    } catch (error) {
      // The account has its share running: the run goes through the queue and waits its turn.
      if (!(error instanceof InlineShareTakenError)) {
        slot.release()
        const replay = await sameKeySentTwice(error)
        if (replay) return replay
        throw error
      }
    }
  }

  const admit = (here: boolean) =>
    executeTx(getDb(), async (trx) => {
      // A test key runs the whole contract but is never charged: no ledger row at all.
      const charged = testMode ? { ok: true as const, transactionId: null, balance: run.balance ?? (await getBalance(payer.accountId, trx)) } : await chargeRun(charge, trx)
      traceJob(row.id, 'charged')
      // Short of credits, past a team member's monthly cap, or no longer a member: nothing charged.
      if (!charged.ok && charged.reason === 'insufficient' && payer.source === 'visitor') {
        const short = guestShortOfCredits(cost, charged.balance)
        throw new ToolError(short.status, short.message, { headers: short.headers })
      }
      if (!charged.ok) throw new ToolError(charged.status, charged.message)
      const [inserted] = await admitRuns(trx, boss, 'single', [{ job: { ...row, chargeTransactionId: charged.transactionId } }])
      // Run here: pg-boss hands the job to this process now, in this transaction (its rules hold).
      const attempt = here ? await takeJobHere(boss, trx, row.id) : null
      if (!attempt) return { job: inserted!, remaining: charged.balance, attempt }
      return { job: await startJob(row.id, firstProgress(definition.steps), trx), remaining: charged.balance, attempt }
    })
  let admitted
  try {
    try {
      admitted = await admit(slot !== null)
    } catch (error) {
      // Another single run was waiting longer: this one goes through the queue like the rest.
      if (!(error instanceof NotThisJobError)) throw error
      slot?.release()
      slot = null
      admitted = await admit(false)
    }
    if (!admitted.attempt) slot?.release()
  } catch (error) {
    slot?.release()
    const replay = await sameKeySentTwice(error)
    if (replay) return replay
    throw error
  }
  traceJob(row.id, 'committed')
  const { job, remaining, attempt } = admitted
  if (slot && attempt) {
    const here = slot
    return { job, remaining, replayed: false, runHere: () => here.run(claimed(job), attempt) }
  }
  runsQueued()
  return { job, remaining, replayed: false }
}
