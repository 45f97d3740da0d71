// The ledger: the one place where balances change. Every change goes through writeEntry, which
// updates the account and appends its credit_transactions row in one transaction (the caller's,
// when it passes one: the dbOrTx pattern), so a balance always equals the sum of its account's
// deltas. A debit is a single conditional UPDATE: the database, not the application, decides
// whether the money is there, so concurrent charges can never overspend.
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { CreditKind, Database } from '~/db/schema'
import { countCredits } from '~/features/observability/metrics.server'

export type ChargeResult =
  | { ok: true; transactionId: number; balance: number; replayed: boolean }
  | { ok: false; reason: 'insufficient'; balance: number }

export const WELCOME_BONUS_DESCRIPTION = 'Welcome bonus'
export const DAILY_REFRESH_DESCRIPTION = 'Daily refresh'
export const REFUND_DESCRIPTION = 'Refund'
/** The welcome bonus is recorded under this idempotency key: the unique index makes it once per account, ever. */
const WELCOME_BONUS_KEY = 'welcome-bonus'

export class LedgerError extends Error {}

function assertAmount(amount: number, what: string): void {
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new LedgerError(`${what} must be a whole number of credits, 0 or more (got ${amount})`)
  }
}

async function currentBalance(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db.selectFrom('credit_accounts').select('balance').where('id', '=', accountId).executeTakeFirst()
  if (!row) throw new LedgerError(`No credit account ${accountId}`)
  return row.balance
}

export async function getBalance(accountId: string, db: DbOrTx = getDb()): Promise<number> {
  return currentBalance(db, accountId)
}

/** One balance change and its ledger row. */
export interface LedgerEntry {
  accountId: string
  /** Signed: negative takes credits away (only when the balance covers it), positive adds them. */
  delta: number
  kind: CreditKind
  description: string | null
  toolSlug?: string | null
  /** At most one entry per account carries a given key: a second one changes nothing. */
  idempotencyKey?: string | null
  /** The charge this entry gives back: a charge is reversed at most once. */
  reversesId?: number | null
  /**
   * What the entry does to lifetime_spent: a tool run's charge adds to it, its refund takes it back
   * off; grants, bonuses and operator corrections leave it alone.
   */
  usage?: 'spend' | 'unspend'
  /** The API key the entry was made with, if any (per-key spend on the dashboard). */
  apiKeyId?: string | null
  /** On a team account: the member the entry was made for (activity, spend this month, caps). */
  userId?: string | null
}

export type EntryResult =
  | { ok: true; transactionId: number; balance: number }
  | { ok: false; reason: 'insufficient'; balance: number }
  /** The idempotency key or the reversed charge is in the ledger already: nothing changed. */
  | { ok: false; reason: 'duplicate'; balance: number }

function usageChange(entry: LedgerEntry, sign: 1 | -1): number {
  const amount = Math.abs(entry.delta)
  if (entry.usage === 'spend') return sign * amount
  if (entry.usage === 'unspend') return -sign * amount
  return 0
}

async function moveBalance(trx: Transaction<Database>, entry: LedgerEntry, sign: 1 | -1, guarded: boolean) {
  const delta = sign * entry.delta
  const spent = usageChange(entry, sign)
  let update = trx
    .updateTable('credit_accounts')
    .set((eb) => ({
      balance: eb('balance', '+', delta),
      ...(spent !== 0 ? { lifetime_spent: eb('lifetime_spent', '+', spent) } : {}),
      updated_at: sql<Date>`now()`,
    }))
    .where('id', '=', entry.accountId)
  if (guarded && delta < 0) update = update.where('balance', '>=', -delta)
  return update.returning('balance').executeTakeFirst()
}

/**
 * The one function that writes a balance change and its ledger row, always inside one transaction.
 * The change comes first (the conditional UPDATE locks the account row, so writers of one account
 * queue there), then the row; when the row's idempotency key or reversed charge is taken, the
 * unique index refuses it and the change is undone in the same transaction.
 */
export async function writeEntry(entry: LedgerEntry, dbOrTx: DbOrTx = getDb()): Promise<EntryResult> {
  if (!Number.isSafeInteger(entry.delta)) throw new LedgerError(`A ledger entry must be a whole number of credits (got ${entry.delta})`)
  return executeTx(dbOrTx, async (trx) => {
    if (entry.reversesId != null) {
      // A reversal is checked under the account's row lock before anything moves: undoing a
      // duplicate's lifetime_spent change afterwards would first break its CHECK (>= 0).
      const locked = await trx
        .selectFrom('credit_accounts')
        .select('balance')
        .where('id', '=', entry.accountId)
        .forUpdate()
        .executeTakeFirst()
      if (!locked) throw new LedgerError(`No credit account ${entry.accountId}`)
      const reversed = await trx
        .selectFrom('credit_transactions')
        .select('id')
        .where('reverses_id', '=', entry.reversesId)
        .executeTakeFirst()
      if (reversed) return { ok: false, reason: 'duplicate', balance: locked.balance }
    }
    const moved = await moveBalance(trx, entry, 1, true)
    if (!moved) return { ok: false, reason: 'insufficient', balance: await currentBalance(trx, entry.accountId) }
    let insert = trx.insertInto('credit_transactions').values({
      account_id: entry.accountId,
      kind: entry.kind,
      delta: entry.delta,
      balance_after: moved.balance,
      description: entry.description,
      tool_slug: entry.toolSlug ?? null,
      idempotency_key: entry.idempotencyKey ?? null,
      reverses_id: entry.reversesId ?? null,
      ...(entry.apiKeyId ? { api_key_id: entry.apiKeyId } : {}),
      ...(entry.userId ? { user_id: entry.userId } : {}),
    })
    if (entry.idempotencyKey) {
      insert = insert.onConflict((oc) =>
        oc.columns(['account_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
      )
    } else if (entry.reversesId != null) {
      insert = insert.onConflict((oc) => oc.column('reverses_id').doNothing())
    }
    const row = await insert.returning('id').executeTakeFirst()
    if (row) return { ok: true, transactionId: row.id, balance: moved.balance }
    const undone = await moveBalance(trx, entry, -1, false)
    return { ok: false, reason: 'duplicate', balance: undone!.balance }
  })
}

async function findByIdempotencyKey(db: DbOrTx, accountId: string, key: string) {
  return db
    .selectFrom('credit_transactions')
    .select(['id', 'balance_after'])
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst()
}

export interface ChargeInput {
  accountId: string
  amount: number
  toolSlug: string
  idempotencyKey: string
  description?: string
  apiKeyId?: string | null
  /** The member a team account is charged for (recorded on the row). */
  userId?: string | null
}

/**
 * Debits `amount` for one tool run, before the run starts. The same idempotency key on the same
 * account never debits twice, also when both requests arrive together: the unique index on
 * (account_id, idempotency_key) picks one winner and the loser's debit is undone.
 * A replay answers the original transaction id and the account's current balance.
 */
export async function charge(
  input: ChargeInput,
  dbOrTx: DbOrTx = getDb(),
): Promise<ChargeResult> {
  assertAmount(input.amount, 'A charge')
  if (!input.idempotencyKey) throw new LedgerError('A charge needs an idempotency key')
  const written = await writeEntry(
    {
      accountId: input.accountId,
      delta: -input.amount,
      kind: 'consume',
      description: input.description ?? null,
      toolSlug: input.toolSlug,
      idempotencyKey: input.idempotencyKey,
      usage: 'spend',
      apiKeyId: input.apiKeyId,
      userId: input.userId,
    },
    dbOrTx,
  )
  if (written.ok) {
    // Counted when written: a charge whose job then fails to queue rolls back but stays counted (rare).
    countCredits('charged', input.amount)
    return { ok: true, replayed: false, transactionId: written.transactionId, balance: written.balance }
  }
  // Either the key was used before (now or by a concurrent request that committed first), or the
  // balance was short. A replay wins over "insufficient": the earlier charge may be what drained it.
  const original = await findByIdempotencyKey(dbOrTx, input.accountId, input.idempotencyKey)
  if (original) return { ok: true, transactionId: original.id, balance: await currentBalance(dbOrTx, input.accountId), replayed: true }
  return { ok: false, reason: 'insufficient', balance: written.balance }
}

/**
 * Gives back a charge (a failed run, a blurrer that found no face): an adjustment with a positive
 * delta that names the charge it reverses. reverses_id is unique, so a charge is refunded once;
 * lifetime_spent is kept net of refunds.
 */
export async function refund(
  chargeTransactionId: number,
  reason?: string,
  dbOrTx: DbOrTx = getDb(),
): Promise<{ refunded: boolean; balance: number }> {
  const original = await dbOrTx
    .selectFrom('credit_transactions')
    .select(['account_id', 'kind', 'delta', 'tool_slug', 'api_key_id', 'user_id'])
    .where('id', '=', chargeTransactionId)
    .executeTakeFirst()
  if (!original || original.kind !== 'consume') throw new LedgerError(`Transaction ${chargeTransactionId} is not a charge`)
  const written = await writeEntry(
    {
      accountId: original.account_id,
      delta: -original.delta,
      kind: 'adjustment',
      description: reason ?? REFUND_DESCRIPTION,
      toolSlug: original.tool_slug,
      reversesId: chargeTransactionId,
      usage: 'unspend',
      // The refund counts against the same key, so its spend stays net of refunds.
      apiKeyId: original.api_key_id,
      // And against the same member, so a team member's spend this month (and cap) is net of refunds.
      userId: original.user_id,
    },
    dbOrTx,
  )
  if (written.ok) countCredits('refunded', -original.delta)
  return { refunded: written.ok, balance: written.balance }
}

/** Adds credits: a purchase, an operator's adjustment or a bonus. */
export async function grant(
  input: { accountId: string; amount: number; kind: 'purchase' | 'adjustment' | 'bonus'; description: string },
  dbOrTx: DbOrTx = getDb(),
): Promise<{ transactionId: number; balance: number }> {
  assertAmount(input.amount, 'A grant')
  const written = await writeEntry(
    { accountId: input.accountId, delta: input.amount, kind: input.kind, description: input.description },
    dbOrTx,
  )
  if (!written.ok) throw new LedgerError(`Grant to ${input.accountId} was not written (${written.reason})`)
  return { transactionId: written.transactionId, balance: written.balance }
}

/**
 * An operator's correction that takes credits away. Like a charge it never takes the balance below
 * zero; unlike a charge it is not usage, so lifetime_spent is untouched.
 */
export async function deduct(
  input: { accountId: string; amount: number; description: string },
  dbOrTx: DbOrTx = getDb(),
): Promise<{ ok: true; transactionId: number; balance: number } | { ok: false; balance: number }> {
  assertAmount(input.amount, 'A deduction')
  const written = await writeEntry(
    { accountId: input.accountId, delta: -input.amount, kind: 'adjustment', description: input.description },
    dbOrTx,
  )
  if (written.ok) return written
  return { ok: false, balance: written.balance }
}

/** A user's account, created with a zero balance the first time it is needed. */
export async function ensureUserAccount(userId: string, db: DbOrTx = getDb()): Promise<string> {
  const existing = await db.selectFrom('credit_accounts').select('id').where('user_id', '=', userId).executeTakeFirst()
  if (existing) return existing.id
  await db
    .insertInto('credit_accounts')
    .values({ user_id: userId, balance: 0, last_refresh_day: null })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute()
  const row = await db
    .selectFrom('credit_accounts')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow()
  return row.id
}

/** The signup bonus (SIGNUP_BONUS, kind bonus, "Welcome bonus"): once per user, ever, also when called twice at once. */
export async function grantWelcomeBonus(userId: string, dbOrTx: DbOrTx = getDb()): Promise<{ granted: boolean; balance: number }> {
  return executeTx(dbOrTx, async (trx) => {
    const accountId = await ensureUserAccount(userId, trx)
    const written = await writeEntry(
      {
        accountId,
        delta: config().SIGNUP_BONUS,
        kind: 'bonus',
        description: WELCOME_BONUS_DESCRIPTION,
        idempotencyKey: WELCOME_BONUS_KEY,
      },
      trx,
    )
    return { granted: written.ok, balance: written.balance }
  })
}

/** The UTC calendar day of `now`, as YYYY-MM-DD. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10)
}

/**
 * The daily refresh, at most once per account per UTC day: visitors are brought up to
 * GUEST_DAILY_CREDITS, users below USER_DAILY_FLOOR up to it (0 disables it). A higher balance is
 * never lowered. The account row is locked while deciding, so racing first requests of the day
 * refresh once; a ledger row is written only when the balance changed.
 */
export async function applyDailyRefresh(
  accountId: string,
  source: 'user' | 'visitor',
  now: Date = new Date(),
  dbOrTx: DbOrTx = getDb(),
  /** How much of the top-up may be granted (a visitor's draws on its address's daily budget). */
  allow?: (wanted: number, trx: Transaction<Database>) => Promise<number>,
): Promise<{ refreshed: boolean; balance: number }> {
  const today = utcDay(now)
  const target = source === 'visitor' ? config().GUEST_DAILY_CREDITS : config().USER_DAILY_FLOOR
  return executeTx(dbOrTx, async (trx) => {
    const row = await trx
      .selectFrom('credit_accounts')
      .select([
        'balance',
        sql<boolean>`last_refresh_day is null or last_refresh_day < ${today}::date`.as('due'),
      ])
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirst()
    if (!row) throw new LedgerError(`No credit account ${accountId}`)
    if (!row.due) return { refreshed: false, balance: row.balance }
    await trx.updateTable('credit_accounts').set({ last_refresh_day: today }).where('id', '=', accountId).execute()
    if (row.balance >= target) return { refreshed: false, balance: row.balance }
    const amount = allow ? await allow(target - row.balance, trx) : target - row.balance
    if (amount <= 0) return { refreshed: false, balance: row.balance }
    const written = await writeEntry(
      { accountId, delta: amount, kind: 'bonus', description: DAILY_REFRESH_DESCRIPTION },
      trx,
    )
    if (!written.ok) throw new LedgerError(`Daily refresh of ${accountId} was not written (${written.reason})`)
    return { refreshed: true, balance: written.balance }
  })
}
