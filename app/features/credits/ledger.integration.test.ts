import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { config } from '~/config.server'
import { getDb } from '~/db/db.server'
import {
  applyDailyRefresh,
  charge,
  deduct,
  ensureUserAccount,
  getBalance,
  grant,
  grantWelcomeBonus,
  refund,
} from './ledger.server'

async function newUser(): Promise<string> {
  const row = await getDb()
    .insertInto('users')
    .values({ email: `ledger-${randomUUID()}@example.test`, password_hash: 'x', first_name: null, last_name: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function accountWith(balance: number): Promise<string> {
  const accountId = await ensureUserAccount(await newUser())
  if (balance > 0) await grant({ accountId, amount: balance, kind: 'adjustment', description: 'Test funds' })
  return accountId
}

async function ledger(accountId: string) {
  const db = getDb()
  const sums = await db
    .selectFrom('credit_transactions')
    .select([
      sql<number>`coalesce(sum(delta), 0)::int`.as('sum'),
      sql<number>`count(*) filter (where kind = 'consume')::int`.as('consumes'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  const account = await db
    .selectFrom('credit_accounts')
    .select(['balance', 'lifetime_spent'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow()
  return { ...sums, ...account }
}

describe('charge', () => {
  it('debits, records the consume row and counts lifetime spending', async () => {
    const accountId = await accountWith(10)
    const result = await charge({ accountId, amount: 2, toolSlug: 'face_restorer', idempotencyKey: randomUUID() })
    expect(result).toMatchObject({ ok: true, balance: 8, replayed: false })
    const row = await getDb()
      .selectFrom('credit_transactions')
      .selectAll()
      .where('id', '=', result.ok ? result.transactionId : -1)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ kind: 'consume', delta: -2, balance_after: 8, tool_slug: 'face_restorer' })
    expect(await ledger(accountId)).toMatchObject({ sum: 8, balance: 8, lifetime_spent: 2 })
  })

  it('refuses a charge larger than the balance and leaves everything untouched', async () => {
    const accountId = await accountWith(1)
    const result = await charge({ accountId, amount: 2, toolSlug: 'image_enhancer', idempotencyKey: randomUUID() })
    expect(result).toEqual({ ok: false, reason: 'insufficient', balance: 1 })
    expect(await ledger(accountId)).toMatchObject({ sum: 1, balance: 1, lifetime_spent: 0, consumes: 0 })
  })

  it('lets exactly 50 of 100 concurrent 1-credit charges through a balance of 50', async () => {
    const accountId = await accountWith(50)
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        charge({ accountId, amount: 1, toolSlug: 'background_remover', idempotencyKey: randomUUID() }),
      ),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(50)
    expect(results.filter((r) => !r.ok)).toHaveLength(50)
    const state = await ledger(accountId)
    expect(state).toMatchObject({ balance: 0, sum: 0, lifetime_spent: 50, consumes: 50 })
  })

  it('never charges twice for one idempotency key: a retry replays the original', async () => {
    const accountId = await accountWith(5)
    const key = randomUUID()
    const first = await charge({ accountId, amount: 1, toolSlug: 'face_blurrer', idempotencyKey: key })
    const retry = await charge({ accountId, amount: 1, toolSlug: 'face_blurrer', idempotencyKey: key })
    expect(first).toMatchObject({ ok: true, replayed: false, balance: 4 })
    expect(retry).toMatchObject({ ok: true, replayed: true, balance: 4 })
    if (first.ok && retry.ok) expect(retry.transactionId).toBe(first.transactionId)
    expect(await ledger(accountId)).toMatchObject({ balance: 4, sum: 4, consumes: 1 })
  })

  it('charges once when 20 requests with the same key arrive at the same moment', async () => {
    const accountId = await accountWith(30)
    const key = randomUUID()
    const results = await Promise.all(
      Array.from({ length: 20 }, () => charge({ accountId, amount: 1, toolSlug: 'face_blurrer', idempotencyKey: key })),
    )
    expect(results.every((r) => r.ok)).toBe(true)
    expect(results.filter((r) => r.ok && !r.replayed)).toHaveLength(1)
    const ids = new Set(results.map((r) => (r.ok ? r.transactionId : null)))
    expect(ids.size).toBe(1)
    expect(await ledger(accountId)).toMatchObject({ balance: 29, sum: 29, consumes: 1, lifetime_spent: 1 })
  })

  it('keeps idempotency keys per account: the same key on another account is a new charge', async () => {
    const a = await accountWith(3)
    const b = await accountWith(3)
    const key = randomUUID()
    expect(await charge({ accountId: a, amount: 1, toolSlug: 'svg_converter', idempotencyKey: key })).toMatchObject({ replayed: false })
    expect(await charge({ accountId: b, amount: 1, toolSlug: 'svg_converter', idempotencyKey: key })).toMatchObject({ replayed: false })
    expect(await getBalance(a)).toBe(2)
    expect(await getBalance(b)).toBe(2)
  })

  it('rejects amounts that are not whole, non-negative numbers', async () => {
    const accountId = await accountWith(3)
    await expect(charge({ accountId, amount: -1, toolSlug: 'x', idempotencyKey: randomUUID() })).rejects.toThrow(/whole number/)
    await expect(charge({ accountId, amount: 1.5, toolSlug: 'x', idempotencyKey: randomUUID() })).rejects.toThrow(/whole number/)
    await expect(grant({ accountId, amount: -5, kind: 'bonus', description: 'no' })).rejects.toThrow(/whole number/)
    expect(await getBalance(accountId)).toBe(3)
  })

  it('cannot take a balance below zero even when asked directly: the schema refuses', async () => {
    const accountId = await accountWith(1)
    await expect(
      getDb().updateTable('credit_accounts').set({ balance: -1 }).where('id', '=', accountId).execute(),
    ).rejects.toThrow()
  })
})

describe('refund', () => {
  it('reverses a charge once, net of lifetime spending, keeping both rows', async () => {
    const accountId = await accountWith(5)
    const charged = await charge({ accountId, amount: 2, toolSlug: 'face_restorer', idempotencyKey: randomUUID() })
    if (!charged.ok) throw new Error('charge failed')
    expect(await refund(charged.transactionId, 'Run failed')).toEqual({ refunded: true, balance: 5 })
    expect(await refund(charged.transactionId)).toEqual({ refunded: false, balance: 5 })
    const state = await ledger(accountId)
    expect(state).toMatchObject({ balance: 5, sum: 5, lifetime_spent: 0, consumes: 1 })
    const reversal = await getDb()
      .selectFrom('credit_transactions')
      .selectAll()
      .where('reverses_id', '=', charged.transactionId)
      .executeTakeFirstOrThrow()
    expect(reversal).toMatchObject({ kind: 'adjustment', delta: 2, balance_after: 5, description: 'Run failed', tool_slug: 'face_restorer' })
  })

  it('refunds once when ten refunds of one charge race', async () => {
    const accountId = await accountWith(4)
    const charged = await charge({ accountId, amount: 1, toolSlug: 'face_blurrer', idempotencyKey: randomUUID() })
    if (!charged.ok) throw new Error('charge failed')
    const results = await Promise.all(Array.from({ length: 10 }, () => refund(charged.transactionId, 'No face found')))
    expect(results.filter((r) => r.refunded)).toHaveLength(1)
    expect(await ledger(accountId)).toMatchObject({ balance: 4, sum: 4, lifetime_spent: 0 })
  })

  it('refuses to refund something that is not a charge', async () => {
    const accountId = await accountWith(0)
    const granted = await grant({ accountId, amount: 3, kind: 'bonus', description: 'Gift' })
    await expect(refund(granted.transactionId)).rejects.toThrow(/not a charge/)
  })
})

describe('grant and deduct', () => {
  it('records purchases, adjustments and bonuses with their balance after', async () => {
    const accountId = await accountWith(0)
    expect(await grant({ accountId, amount: 100, kind: 'purchase', description: 'Starter' })).toMatchObject({ balance: 100 })
    expect(await grant({ accountId, amount: 5, kind: 'adjustment', description: 'Goodwill' })).toMatchObject({ balance: 105 })
    expect(await ledger(accountId)).toMatchObject({ balance: 105, sum: 105, lifetime_spent: 0 })
  })

  it('deducts without going below zero and without counting it as usage', async () => {
    const accountId = await accountWith(3)
    expect(await deduct({ accountId, amount: 5, description: 'Too much' })).toEqual({ ok: false, balance: 3 })
    expect(await deduct({ accountId, amount: 2, description: 'Correction' })).toMatchObject({ ok: true, balance: 1 })
    expect(await ledger(accountId)).toMatchObject({ balance: 1, sum: 1, lifetime_spent: 0 })
  })
})

describe('welcome bonus', () => {
  it('is granted once per user, also when requested concurrently', async () => {
    const userId = await newUser()
    const results = await Promise.all(Array.from({ length: 5 }, () => grantWelcomeBonus(userId)))
    expect(results.filter((r) => r.granted)).toHaveLength(1)
    expect(await grantWelcomeBonus(userId)).toEqual({ granted: false, balance: config().SIGNUP_BONUS })
    const accountId = await ensureUserAccount(userId)
    const rows = await getDb().selectFrom('credit_transactions').selectAll().where('account_id', '=', accountId).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ kind: 'bonus', delta: 50, description: 'Welcome bonus' })
  })
})

describe('daily refresh', () => {
  const day1 = new Date('2031-03-04T23:59:30Z')
  const day1Later = new Date('2031-03-04T23:59:59Z')
  const day2 = new Date('2031-03-05T00:00:01Z')

  it('tops a user below the floor up to it once per UTC day, across the day boundary', async () => {
    const accountId = await accountWith(0)
    expect(await applyDailyRefresh(accountId, 'user', day1)).toEqual({ refreshed: true, balance: 10 })
    await charge({ accountId, amount: 7, toolSlug: 'face_restorer', idempotencyKey: randomUUID() })
    expect(await applyDailyRefresh(accountId, 'user', day1Later)).toEqual({ refreshed: false, balance: 3 })
    expect(await applyDailyRefresh(accountId, 'user', day2)).toEqual({ refreshed: true, balance: 10 })
    const state = await ledger(accountId)
    expect(state).toMatchObject({ balance: 10, sum: 10 })
    const refreshes = await getDb()
      .selectFrom('credit_transactions')
      .select(['delta', 'description'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'bonus')
      .orderBy('id')
      .execute()
    expect(refreshes).toEqual([
      { delta: 10, description: 'Daily refresh' },
      { delta: 7, description: 'Daily refresh' },
    ])
  })

  it('never lowers a balance above the floor and writes no row for it', async () => {
    const accountId = await accountWith(40)
    expect(await applyDailyRefresh(accountId, 'user', day1)).toEqual({ refreshed: false, balance: 40 })
    expect(await ledger(accountId)).toMatchObject({ balance: 40, sum: 40 })
  })

  it('refreshes exactly once when the first requests of a day race', async () => {
    const accountId = await accountWith(2)
    const results = await Promise.all(Array.from({ length: 10 }, () => applyDailyRefresh(accountId, 'visitor', day2)))
    expect(results.filter((r) => r.refreshed)).toHaveLength(1)
    expect(await ledger(accountId)).toMatchObject({ balance: 5, sum: 5 })
  })
})
