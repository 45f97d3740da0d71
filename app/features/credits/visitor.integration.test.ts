// Guest credits per client address and day (decision 080), through resolveCaller as every page and
// endpoint uses it: identities per address, the shared visitor past them, and the address's daily
// budget that bounds every guest grant (new visitors and daily refreshes of stored cookies alike).
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { config } from '~/config.server'
import { getDb } from '~/db/db.server'
import { BASE } from '../../../tests/support/requests'
import { resolveCaller, type Caller } from '../account/caller.server'
import { charge } from './ledger.server'
import { guestDailyBudget } from './visitor.server'

const address = () => `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`

function request(ip: string, cookie?: string): Request {
  return new Request(`${BASE}/api/credits/balance/`, { headers: { 'x-facet-client-ip': ip, ...(cookie ? { cookie } : {}) } })
}

async function visit(ip: string, now: Date, cookie?: string) {
  const resolved = await resolveCaller(request(ip, cookie), { now })
  if (resolved.kind !== 'caller') throw new Error(resolved.kind)
  return { caller: resolved.caller, balance: resolved.balance, cookie: resolved.setCookie?.split(';')[0] ?? cookie! }
}

/** Guest credits granted (new visitors' allowances and refreshes) to these accounts, ever. */
async function granted(accounts: Caller[]): Promise<number> {
  const ids = [...new Set(accounts.map((c) => c.accountId))]
  const row = await getDb()
    .selectFrom('credit_transactions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('delta'), eb.lit(0)).as('n'))
    .where('account_id', 'in', ids)
    .where('kind', '=', 'bonus')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('visitor identities per client address', () => {
  it('mints GUEST_IDENTITIES_PER_ADDRESS visitors a day; every browser after them shares one visitor', async () => {
    const ip = address()
    const now = new Date()
    const identities = config().GUEST_IDENTITIES_PER_ADDRESS
    const visits = []
    for (let i = 0; i < identities + 3; i++) visits.push(await visit(ip, now))
    const own = visits.slice(0, identities)
    const past = visits.slice(identities)
    expect(new Set(own.map((v) => v.caller.visitorId)).size).toBe(identities)
    expect(own.every((v) => v.balance === config().GUEST_DAILY_CREDITS)).toBe(true)
    // Past the budget: one shared visitor, with what the address's budget has left today (nothing).
    expect(new Set(past.map((v) => v.caller.visitorId)).size).toBe(1)
    expect(own.map((v) => v.caller.visitorId)).not.toContain(past[0]!.caller.visitorId)
    expect(past.every((v) => v.balance === 0)).toBe(true)
    expect(await granted(visits.map((v) => v.caller))).toBe(guestDailyBudget())
    // Another address is another budget.
    expect((await visit(address(), now)).balance).toBe(config().GUEST_DAILY_CREDITS)
  })

  it('stored cookies refresh the next day only as far as the address budget goes, new ones included', async () => {
    const ip = address()
    const day1 = new Date('2031-03-01T10:00:00Z')
    const day2 = new Date('2031-03-02T10:00:00Z')
    const identities = config().GUEST_IDENTITIES_PER_ADDRESS
    const kept = []
    for (let i = 0; i < identities; i++) kept.push(await visit(ip, day1))
    for (const v of kept) {
      await charge({ accountId: v.caller.accountId, amount: v.balance, toolSlug: 'face_blurrer', idempotencyKey: randomUUID() })
    }
    const day1Grants = await granted(kept.map((v) => v.caller))
    // Day 2: the kept cookies come back (each refreshed), then a script mints more identities.
    const day2Visits = []
    for (const v of kept) day2Visits.push(await visit(ip, day2, v.cookie))
    for (let i = 0; i < identities + 2; i++) day2Visits.push(await visit(ip, day2))
    expect(day2Visits.slice(0, identities).every((v) => v.balance === config().GUEST_DAILY_CREDITS)).toBe(true)
    expect(day2Visits.slice(identities).every((v) => v.balance === 0)).toBe(true)
    expect((await granted(day2Visits.map((v) => v.caller))) - day1Grants).toBe(guestDailyBudget())
  })

  it('a browser holding the shared cookie is refreshed first thing the next day: the address budget is shared', async () => {
    const ip = address()
    const day1 = new Date('2031-04-01T10:00:00Z')
    const day2 = new Date('2031-04-02T08:00:00Z')
    const identities = config().GUEST_IDENTITIES_PER_ADDRESS
    for (let i = 0; i < identities; i++) await visit(ip, day1)
    const shared = await visit(ip, day1)
    expect(shared.balance).toBe(0)
    const back = await visit(ip, day2, shared.cookie)
    expect(back.caller.visitorId).toBe(shared.caller.visitorId)
    expect(back.balance).toBe(config().GUEST_DAILY_CREDITS)
  })

  it('groups IPv6 by /64: cycling through the addresses of one line gets no new budget', async () => {
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`
    const now = new Date()
    const visits = []
    for (let i = 0; i < config().GUEST_IDENTITIES_PER_ADDRESS + 2; i++) visits.push(await visit(`${prefix}::${(i + 1).toString(16)}`, now))
    expect(visits.reduce((sum, v) => sum + v.balance, 0)).toBe(guestDailyBudget())
    expect(new Set(visits.slice(-2).map((v) => v.caller.visitorId)).size).toBe(1)
  })

  it('a page shows a browser without a cookie what it would get here, writing nothing: 0 once the address is spent', async () => {
    const ip = address()
    const now = new Date()
    const preview = async () => resolveCaller(request(ip), { create: false, now })
    expect(await preview()).toEqual({ kind: 'guest-preview', balance: config().GUEST_DAILY_CREDITS, visitorAddress: ip })
    expect(await getDb().selectFrom('guest_address_days').select('address').where('address', '=', ip).executeTakeFirst()).toBeUndefined()
    for (let i = 0; i < config().GUEST_IDENTITIES_PER_ADDRESS; i++) await visit(ip, now)
    expect(await preview()).toEqual({ kind: 'guest-preview', balance: 0, visitorAddress: ip })
  })

  it('keeps only recent days: the first row of a new day clears the days before yesterday', async () => {
    const old = address()
    await visit(old, new Date('2032-05-01T10:00:00Z'))
    await visit(address(), new Date('2032-05-02T10:00:00Z'))
    const days = () => getDb().selectFrom('guest_address_days').select('address').where('address', '=', old).execute()
    expect(await days()).toHaveLength(1)
    await visit(address(), new Date('2032-05-03T10:00:00Z'))
    expect(await days()).toHaveLength(0)
  })

  it('racing first requests from one address never mint past the budget (the address row is locked)', async () => {
    const ip = address()
    const now = new Date()
    const visits = await Promise.all(Array.from({ length: 12 }, () => visit(ip, now)))
    expect(visits.reduce((sum, v) => sum + v.balance, 0)).toBeLessThanOrEqual(guestDailyBudget())
    const day = await getDb().selectFrom('guest_address_days').selectAll().where('address', '=', ip).executeTakeFirstOrThrow()
    expect(day.identities).toBe(config().GUEST_IDENTITIES_PER_ADDRESS)
    expect(day.credits).toBe(guestDailyBudget())
  })
})
