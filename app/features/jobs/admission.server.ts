// Queue admission (docs/decisions/085): who may add work to the queue. Two pools, one rule each:
//   single runs (the tool endpoints, POST /api/jobs/, the tool pages): at most TOOL_QUEUE_LIMIT
//   waiting over every process, and one account at most its share (JOBS_WAITING_PER_ACCOUNT, by
//   default half the limit, at least 1);
//   batch items: at most BATCH_QUEUE_LIMIT waiting, one account at most half of it (never less than
//   one full batch). A batch item never counts against the single runs' limit (a batch of 100 could
//   never fit in 8), and it is queued behind them (pg-boss priority), so batches never hold up a
//   run someone is waiting on.
// Past the limit: 503 (the studio is busy for everyone); past the account's share: 429 (that client
// must slow down, others are served). Both carry Retry-After and are charged nothing.
//
// The decision is made in the transaction that inserts the work, after the insert, under one
// advisory transaction lock: admissions are serialised from the count to the commit, and each
// count sees every admission committed before it plus its own rows. The expensive part (the
// charge, the upload's insert) happens before the lock, so the lock is held for a count, a send
// and a commit. A check before the upload is read (checkRoom) turns most refusals away early; it
// is only advice, the locked check decides.
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { MAX_BATCH_FILES } from '~/catalog/batches'
import { AccountQueueFullError, QueueFullError } from './errors.server'

/** A rough run time, for telling a refused client when to come back. */
const TYPICAL_RUN_SECONDS = 2
/** The advisory lock that serialises admissions (the two-key form: pg-boss uses the one-key form). */
const ADMISSION_LOCK = sql`pg_advisory_xact_lock(hashtext('facet-studio'), 85)`

export type QueuePool = 'single' | 'batch'

export interface PoolLimits {
  /** Waiting at most, over every account and process. */
  queue: number
  /** Waiting at most for one account. */
  perAccount: number
}

/** One account's share of a queue: half of it, at least `floor`. */
export function accountShare(queueLimit: number, floor: number): number {
  return Math.max(floor, Math.floor(queueLimit / 2))
}

export function poolLimits(pool: QueuePool): PoolLimits {
  const c = config()
  if (pool === 'batch') return { queue: c.BATCH_QUEUE_LIMIT, perAccount: accountShare(c.BATCH_QUEUE_LIMIT, MAX_BATCH_FILES) }
  // An empty queue always takes one run (TOOL_QUEUE_LIMIT=0 means "no waiting beyond the one").
  const queue = Math.max(1, c.TOOL_QUEUE_LIMIT)
  return { queue, perAccount: Math.min(queue, c.JOBS_WAITING_PER_ACCOUNT ?? accountShare(queue, 1)) }
}

export interface WaitingCounts {
  all: number
  account: number
}

/** Jobs of the pool waiting for a worker (status queued), in all and for the account. */
export async function countWaiting(pool: QueuePool, accountId: string | null, dbOrTx: DbOrTx = getDb()): Promise<WaitingCounts> {
  const row = await dbOrTx
    .selectFrom('tool_jobs')
    .select([
      sql<number>`count(*)::int`.as('all'),
      sql<number>`count(*) filter (where account_id = ${accountId})::int`.as('account'),
    ])
    .where('status', '=', 'queued')
    .where('batch_id', pool === 'batch' ? 'is not' : 'is', null)
    .executeTakeFirstOrThrow()
  return row
}

function retryAfter(waiting: number, slots: number): number {
  return Math.max(1, Math.ceil((waiting * TYPICAL_RUN_SECONDS) / Math.max(1, slots)))
}

/**
 * Throws the refusal when `adding` more would pass the pool's limit or the account's share, given
 * `counts` that do not include them yet.
 */
export function refuseOverLimits(pool: QueuePool, counts: WaitingCounts, adding: number): void {
  const limits = poolLimits(pool)
  if (counts.account + adding > limits.perAccount) {
    const what = pool === 'batch' ? 'batch files' : 'runs'
    const seconds = retryAfter(counts.account, config().JOBS_PER_ACCOUNT)
    const sending = adding > 1 ? ` and this batch adds ${adding}` : ''
    throw new AccountQueueFullError(
      `You already have ${counts.account} ${what} waiting for a worker${sending}; one account may have at most ${limits.perAccount} waiting. ` +
        `Send this again once some of them have started (in about ${seconds} seconds).`,
      seconds,
    )
  }
  if (counts.all + adding > limits.queue) {
    throw new QueueFullError(retryAfter(counts.all, config().workerConcurrency))
  }
}

/** Before the upload is read: refuse what would surely be refused (advice; admitInTransaction decides). */
export async function checkRoom(pool: QueuePool, accountId: string | null, adding = 1): Promise<void> {
  refuseOverLimits(pool, await countWaiting(pool, accountId), adding)
}

/**
 * In the transaction that has just inserted `added` jobs of the pool for the account (still
 * queued): waits for the admission lock, then refuses (the caller's transaction rolls back, charge
 * included) when they do not fit. The lock is released at commit or rollback.
 */
export async function admitInTransaction(trx: Transaction<Database>, pool: QueuePool, accountId: string, added: number): Promise<void> {
  await sql`select ${ADMISSION_LOCK}`.execute(trx)
  const counts = await countWaiting(pool, accountId, trx)
  refuseOverLimits(pool, { all: counts.all - added, account: counts.account - added }, added)
}

/** An inline run goes through the queue instead: its account has JOBS_PER_ACCOUNT single runs running. */
export class InlineShareTakenError extends Error {
  constructor() {
    super("the account's running runs are at their share: this one goes through the queue")
  }
}

/**
 * In the transaction that has just inserted an inline run (docs/decisions/176), running: under the
 * admission lock, the account's single runs running over every process, this one included, must be
 * within JOBS_PER_ACCOUNT (pg-boss's group concurrency for queued runs), else InlineShareTakenError
 * (the caller's transaction rolls back and the run is admitted to the queue, where it waits its turn).
 * An inline run never waits, so the queue's limits do not count it.
 */
export async function admitInline(trx: Transaction<Database>, accountId: string): Promise<void> {
  await sql`select ${ADMISSION_LOCK}`.execute(trx)
  const row = await trx
    .selectFrom('tool_jobs')
    .select(sql<number>`count(*)::int`.as('running'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'running')
    .where('batch_id', 'is', null)
    .executeTakeFirstOrThrow()
  if (row.running > config().JOBS_PER_ACCOUNT) throw new InlineShareTakenError()
}
