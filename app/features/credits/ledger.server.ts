// The ledger: the one place where balances change. Every change is one short transaction that
// updates the account and appends its credit_transactions row together, so a balance always equals
// the sum of its account's deltas. Debits are a single conditional UPDATE: the database, not the
// application, decides whether the money is there, so concurrent charges can never overspend.
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { getDb, type DB } from '~/db/db.server'
import type { CreditKind, Database } from '~/db/schema'

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

/** Thrown inside a transaction to roll it back when another request won a race; never escapes this module. */
class LostRace extends Error {}

async function currentBalance(db: DB | Transaction<Database>, accountId: string): Promise<number> {
  const row = await db.selectFrom('credit_accounts').select('balance').where('id', '=', accountId).executeTakeFirst()
  if (!row) throw new LedgerError(`No credit account ${accountId}`)
  return row.balance
}

export async function getBalance(accountId: string, db: DB = getDb()): Promise<number> {
  return currentBalance(db, accountId)
}

/**
 * The one debit statement: it takes `amount` only when the balance covers it, so no race can
 * overspend. A tool run counts as usage (lifetime_spent); an operator's correction does not.
 */
async function debitIfCovered(
  trx: Transaction<Database>,
  accountId: string,
  amount: number,
  options: { countsAsUsage: boolean },
): Promise<{ balance: number } | undefined> {
  return trx
    .updateTable('credit_accounts')
    .set((eb) => ({
      balance: eb('balance', '-', amount),
      ...(options.countsAsUsage ? { lifetime_spent: eb('lifetime_spent', '+', amount) } : {}),
      updated_at: sql<Date>`now()`,
    }))
    .where('id', '=', accountId)
    .where('balance', '>=', amount)
    .returning('balance')
    .executeTakeFirst()
}

async function findByIdempotencyKey(db: DB, accountId: string, key: string) {
  return db
    .selectFrom('credit_transactions')
    .select(['id', 'balance_after'])
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst()
}

/**
 * Debits `amount` for one tool run, before the run starts. The same idempotency key on the same
 * account never debits twice, also when both requests arrive together: the unique index on
 * (account_id, idempotency_key) picks one winner and the loser's debit is rolled back.
 * A replay answers the original transaction id and the account's current balance.
 */
export async function charge(
  input: { accountId: string; amount: number; toolSlug: string; idempotencyKey: string; description?: string },
  db: DB = getDb(),
): Promise<ChargeResult> {
  assertAmount(input.amount, 'A charge')
  if (!input.idempotencyKey) throw new LedgerError('A charge needs an idempotency key')
  const replay = async (): Promise<ChargeResult | null> => {
    const original = await findByIdempotencyKey(db, input.accountId, input.idempotencyKey)
    if (!original) return null
    return { ok: true, transactionId: original.id, balance: await currentBalance(db, input.accountId), replayed: true }
  }

  // No lookup first: a retry is rare, and the unique index catches it inside the transaction anyway.
  try {
    const outcome = await db.transaction().execute(async (trx) => {
      const debited = await debitIfCovered(trx, input.accountId, input.amount, { countsAsUsage: true })
      if (!debited) return null
      const row = await trx
        .insertInto('credit_transactions')
        .values({
          account_id: input.accountId,
          kind: 'consume',
          delta: -input.amount,
          balance_after: debited.balance,
          description: input.description ?? null,
          tool_slug: input.toolSlug,
          idempotency_key: input.idempotencyKey,
        })
        .onConflict((oc) =>
          oc.columns(['account_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
        )
        .returning('id')
        .executeTakeFirst()
      if (!row) throw new LostRace()
      return { transactionId: row.id, balance: debited.balance }
    })
    if (outcome) return { ok: true, replayed: false, ...outcome }
  } catch (error) {
    if (!(error instanceof LostRace)) throw error
  }
  // Either the key was used before (now or by a concurrent request that committed first), or the
  // balance was short. A replay wins over "insufficient": the earlier charge may be what drained it.
  const raced = await replay()
  if (raced) return raced
  return { ok: false, reason: 'insufficient', balance: await currentBalance(db, input.accountId) }
}

/**
 * Gives back a charge (a failed run, a blurrer that found no face): an adjustment with a positive
 * delta that names the charge it reverses. reverses_id is unique, so a charge is refunded once;
 * lifetime_spent is kept net of refunds.
 */
export async function refund(
  chargeTransactionId: number,
  reason?: string,
  db: DB = getDb(),
): Promise<{ refunded: boolean; balance: number }> {
  const original = await db
    .selectFrom('credit_transactions')
    .select(['account_id', 'kind', 'delta', 'tool_slug'])
    .where('id', '=', chargeTransactionId)
    .executeTakeFirst()
  if (!original || original.kind !== 'consume') throw new LedgerError(`Transaction ${chargeTransactionId} is not a charge`)
  const amount = -original.delta
  try {
    const balance = await db.transaction().execute(async (trx) => {
      const credited = await trx
        .updateTable('credit_accounts')
        .set((eb) => ({
          balance: eb('balance', '+', amount),
          lifetime_spent: sql<number>`greatest(${eb.ref('lifetime_spent')} - ${amount}, 0)`,
          updated_at: sql<Date>`now()`,
        }))
        .where('id', '=', original.account_id)
        .returning('balance')
        .executeTakeFirstOrThrow()
      const row = await trx
        .insertInto('credit_transactions')
        .values({
          account_id: original.account_id,
          kind: 'adjustment',
          delta: amount,
          balance_after: credited.balance,
          description: reason ?? REFUND_DESCRIPTION,
          tool_slug: original.tool_slug,
          reverses_id: chargeTransactionId,
        })
        .onConflict((oc) => oc.column('reverses_id').doNothing())
        .returning('id')
        .executeTakeFirst()
      if (!row) throw new LostRace()
      return credited.balance
    })
    return { refunded: true, balance }
  } catch (error) {
    if (!(error instanceof LostRace)) throw error
    return { refunded: false, balance: await currentBalance(db, original.account_id) }
  }
}

/** Adds credits: a purchase, an operator's adjustment or a bonus. */
export async function grant(
  input: { accountId: string; amount: number; kind: 'purchase' | 'adjustment' | 'bonus'; description: string },
  db: DB = getDb(),
): Promise<{ transactionId: number; balance: number }> {
  assertAmount(input.amount, 'A grant')
  const result = await credit(db, { ...input, idempotencyKey: null })
  return result!
}

/**
 * An operator's correction that takes credits away. Like a charge it never takes the balance below
 * zero; unlike a charge it is not usage, so lifetime_spent is untouched.
 */
export async function deduct(
  input: { accountId: string; amount: number; description: string },
  db: DB = getDb(),
): Promise<{ ok: true; transactionId: number; balance: number } | { ok: false; balance: number }> {
  assertAmount(input.amount, 'A deduction')
  const result = await db.transaction().execute(async (trx) => {
    const debited = await debitIfCovered(trx, input.accountId, input.amount, { countsAsUsage: false })
    if (!debited) return null
    const row = await trx
      .insertInto('credit_transactions')
      .values({
        account_id: input.accountId,
        kind: 'adjustment',
        delta: -input.amount,
        balance_after: debited.balance,
        description: input.description,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { transactionId: row.id, balance: debited.balance }
  })
  if (result) return { ok: true, ...result }
  return { ok: false, balance: await currentBalance(db, input.accountId) }
}

/** Credits an account and appends the row; with an idempotency key, answers null when it was used already. */
async function credit(
  db: DB,
  input: { accountId: string; amount: number; kind: CreditKind; description: string; idempotencyKey: string | null },
): Promise<{ transactionId: number; balance: number } | null> {
  try {
    return await db.transaction().execute(async (trx) => {
      const credited = await trx
        .updateTable('credit_accounts')
        .set((eb) => ({ balance: eb('balance', '+', input.amount), updated_at: sql<Date>`now()` }))
        .where('id', '=', input.accountId)
        .returning('balance')
        .executeTakeFirst()
      if (!credited) throw new LedgerError(`No credit account ${input.accountId}`)
      let insert = trx.insertInto('credit_transactions').values({
        account_id: input.accountId,
        kind: input.kind,
        delta: input.amount,
        balance_after: credited.balance,
        description: input.description,
        idempotency_key: input.idempotencyKey,
      })
      if (input.idempotencyKey) {
        insert = insert.onConflict((oc) =>
          oc.columns(['account_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
        )
      }
      const row = await insert.returning('id').executeTakeFirst()
      if (!row) throw new LostRace()
      return { transactionId: row.id, balance: credited.balance }
    })
  } catch (error) {
    if (error instanceof LostRace) return null
    throw error
  }
}

/** A user's account, created with a zero balance the first time it is needed. */
export async function ensureUserAccount(userId: string, db: DB = getDb()): Promise<string> {
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
export async function grantWelcomeBonus(userId: string, db: DB = getDb()): Promise<{ granted: boolean; balance: number }> {
  const accountId = await ensureUserAccount(userId, db)
  const amount = config().SIGNUP_BONUS
  const already = await findByIdempotencyKey(db, accountId, WELCOME_BONUS_KEY)
  if (already) return { granted: false, balance: await currentBalance(db, accountId) }
  const result = await credit(db, {
    accountId,
    amount,
    kind: 'bonus',
    description: WELCOME_BONUS_DESCRIPTION,
    idempotencyKey: WELCOME_BONUS_KEY,
  })
  if (!result) return { granted: false, balance: await currentBalance(db, accountId) }
  return { granted: true, balance: result.balance }
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
  db: DB = getDb(),
): Promise<{ refreshed: boolean; balance: number }> {
  const today = utcDay(now)
  const target = source === 'visitor' ? config().GUEST_DAILY_CREDITS : config().USER_DAILY_FLOOR
  return db.transaction().execute(async (trx) => {
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
    const balance = Math.max(row.balance, target)
    await trx
      .updateTable('credit_accounts')
      .set({ balance, last_refresh_day: today, updated_at: sql<Date>`now()` })
      .where('id', '=', accountId)
      .execute()
    if (balance === row.balance) return { refreshed: false, balance }
    await trx
      .insertInto('credit_transactions')
      .values({
        account_id: accountId,
        kind: 'bonus',
        delta: balance - row.balance,
        balance_after: balance,
        description: DAILY_REFRESH_DESCRIPTION,
      })
      .execute()
    return { refreshed: true, balance }
  })
}
