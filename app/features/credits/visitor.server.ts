// Visitors' credits. A visitor is known by its id (from its cookie, read in the account room:
// account/visitor-cookie.server.ts) and by the address it comes from (its client address group: an
// IPv4 address, or an IPv6 /64). A cookie is free to drop, so guest credits are metered per address
// and UTC day, not per cookie (decision 080):
// - an address mints at most GUEST_IDENTITIES_PER_ADDRESS visitors with their own account a day;
//   every browser past that gets the address's one shared visitor (and its account);
// - every guest grant at an address (a new visitor's allowance, any visitor's daily refresh, the
//   shared visitor's included) draws on the address's daily budget of GUEST_DAILY_CREDITS ×
//   GUEST_IDENTITIES_PER_ADDRESS, so no number of cookies, old or new, gets more free credits a day.
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { utcTimeText } from '~/features/security/rate-limit.server'
import { guestRenewalRule } from './guest-rule'
import { applyDailyRefresh, grant, utcDay } from './ledger.server'
import { formatCredits } from '~/utils/credits-word'

export const GUEST_CREDITS_DESCRIPTION = 'Guest credits'
/** Where a visitor signs up (the login page's registration form). */
export const SIGN_UP_PATH = '/login?mode=register'

export interface VisitorAccount {
  accountId: string
  visitorId: string
  balance: number
  /** The daily refresh has not happened yet today. */
  refreshDue: boolean
}

export async function findVisitorAccount(visitorId: string, now: Date, db: DbOrTx = getDb()): Promise<VisitorAccount | null> {
  const row = await db
    .selectFrom('credit_accounts')
    .select([
      'id',
      'balance',
      sql<boolean>`last_refresh_day is null or last_refresh_day < ${utcDay(now)}::date`.as('due'),
    ])
    .where('visitor_id', '=', visitorId)
    .executeTakeFirst()
  return row ? { accountId: row.id, visitorId, balance: row.balance, refreshDue: row.due } : null
}

/** The most guest credits one address may be granted in one UTC day. */
export function guestDailyBudget(): number {
  return config().GUEST_DAILY_CREDITS * config().GUEST_IDENTITIES_PER_ADDRESS
}

interface AddressDay {
  address: string
  day: string
  identities: number
  credits: number
}

/**
 * The address's row for the day, locked until the transaction ends: every guest grant at one
 * address queues here (always before any account row, so two paths never lock in opposite orders).
 */
async function lockAddressDay(address: string, day: string, trx: Transaction<Database>): Promise<AddressDay> {
  const inserted = await trx
    .insertInto('guest_address_days')
    .values({ address, day })
    .onConflict((oc) => oc.columns(['address', 'day']).doNothing())
    .executeTakeFirst()
  // Only today's budget is ever read: a new row (once per address a day) clears days before
  // yesterday, so the table holds about two days of active addresses.
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
    await trx.deleteFrom('guest_address_days').where('day', '<', sql<string>`${day}::date - 1`).execute()
  }
  const row = await trx
    .selectFrom('guest_address_days')
    .select(['identities', 'credits'])
    .where('address', '=', address)
    .where('day', '=', sql<string>`${day}::date`)
    .forUpdate()
    .executeTakeFirstOrThrow()
  return { address, day, identities: row.identities, credits: row.credits }
}

/** Takes up to `wanted` credits from the (locked) address's budget for the day: what it may grant. */
async function drawFromBudget(budget: AddressDay, wanted: number, trx: Transaction<Database>): Promise<number> {
  const granted = Math.max(0, Math.min(wanted, guestDailyBudget() - budget.credits))
  if (granted === 0) return 0
  await trx
    .updateTable('guest_address_days')
    .set({ credits: sql`credits + ${granted}` })
    .where('address', '=', budget.address)
    .where('day', '=', sql<string>`${budget.day}::date`)
    .execute()
  budget.credits += granted
  return granted
}

/**
 * A visitor's first request of the day: its balance is brought up to GUEST_DAILY_CREDITS as far
 * as the budget of the address it comes from today allows.
 */
export async function refreshVisitor(address: string, accountId: string, now: Date, db: DbOrTx = getDb()): Promise<number> {
  return executeTx(db, async (trx) => {
    const budget = await lockAddressDay(address, utcDay(now), trx)
    const refreshed = await applyDailyRefresh(accountId, 'visitor', now, trx, (wanted, tx) => drawFromBudget(budget, wanted, tx))
    return refreshed.balance
  })
}

export interface NewVisitor {
  account: VisitorAccount
  /** The address's shared visitor: its identity budget for the day was spent. */
  shared: boolean
}

/**
 * A browser without a (live) visitor cookie: a new visitor with its own account and today's
 * allowance (as far as the address's budget goes), while the address has identities left today;
 * else the address's shared visitor. One transaction, under the address's lock.
 */
export async function createVisitor(address: string, now: Date, db: DbOrTx = getDb()): Promise<NewVisitor> {
  const day = utcDay(now)
  const { account, shared } = await executeTx(db, async (trx) => {
    const budget = await lockAddressDay(address, day, trx)
    if (budget.identities >= config().GUEST_IDENTITIES_PER_ADDRESS) {
      return { account: await sharedVisitor(budget, now, trx), shared: true }
    }
    await trx
      .updateTable('guest_address_days')
      .set({ identities: sql`identities + 1` })
      .where('address', '=', address)
      .where('day', '=', sql<string>`${day}::date`)
      .execute()
    const visitor = await trx.insertInto('visitors').defaultValues().returning('id').executeTakeFirstOrThrow()
    const created = await trx
      .insertInto('credit_accounts')
      .values({ visitor_id: visitor.id, balance: 0, last_refresh_day: day })
      .returning('id')
      .executeTakeFirstOrThrow()
    const allowance = await drawFromBudget(budget, config().GUEST_DAILY_CREDITS, trx)
    if (allowance > 0) {
      await grant({ accountId: created.id, amount: allowance, kind: 'bonus', description: GUEST_CREDITS_DESCRIPTION }, trx)
    }
    return { account: { accountId: created.id, visitorId: visitor.id, balance: allowance, refreshDue: false }, shared: false }
  })
  return { account, shared }
}

/** The address's shared visitor (created the first time), refreshed from the address's budget. */
async function sharedVisitor(budget: AddressDay, now: Date, trx: Transaction<Database>): Promise<VisitorAccount> {
  await trx
    .insertInto('visitors')
    .values({ shared_address: budget.address })
    .onConflict((oc) => oc.column('shared_address').doNothing())
    .execute()
  const visitor = await trx.selectFrom('visitors').select('id').where('shared_address', '=', budget.address).executeTakeFirstOrThrow()
  // A new shared account starts unrefreshed: the refresh below grants its allowance from the budget.
  await trx
    .insertInto('credit_accounts')
    .values({ visitor_id: visitor.id, balance: 0, last_refresh_day: null })
    .onConflict((oc) => oc.column('visitor_id').doNothing())
    .execute()
  const account = await findVisitorAccount(visitor.id, now, trx)
  if (!account) throw new Error(`shared visitor ${visitor.id} has no account`)
  if (!account.refreshDue) return account
  const refreshed = await applyDailyRefresh(account.accountId, 'visitor', now, trx, (wanted, tx) => drawFromBudget(budget, wanted, tx))
  return { ...account, balance: refreshed.balance, refreshDue: false }
}

/**
 * The balance a browser without a cookie would get from this address now, written nowhere: pages
 * show it before the first run, so a visitor at an address whose budget is spent learns it before
 * the click, not after.
 */
export async function guestPreviewBalance(address: string, now: Date, db: DbOrTx = getDb()): Promise<number> {
  const day = utcDay(now)
  const allowance = config().GUEST_DAILY_CREDITS
  const today = await db
    .selectFrom('guest_address_days')
    .select(['identities', 'credits'])
    .where('address', '=', address)
    .where('day', '=', sql<string>`${day}::date`)
    .executeTakeFirst()
  const left = guestDailyBudget() - (today?.credits ?? 0)
  if ((today?.identities ?? 0) < config().GUEST_IDENTITIES_PER_ADDRESS) return Math.max(0, Math.min(allowance, left))
  const shared = await db
    .selectFrom('visitors as v')
    .innerJoin('credit_accounts as a', 'a.visitor_id', 'v.id')
    .select(['a.balance', sql<boolean>`a.last_refresh_day is null or a.last_refresh_day < ${day}::date`.as('due')])
    .where('v.shared_address', '=', address)
    .executeTakeFirst()
  const balance = shared?.balance ?? 0
  return shared && !shared.due ? balance : balance + Math.max(0, Math.min(allowance - balance, left))
}

// --- What a visitor is told when it may not run (decision 080) ---

export function signUpUrl(): string {
  return new URL(SIGN_UP_PATH, config().PUBLIC_URL).toString()
}

/** The next UTC midnight, when guest credits renew. */
export function nextGuestRenewal(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
}

export interface GuestRefusal {
  status: 401 | 402
  message: string
  headers: Record<string, string>
}

export const GUEST_RUNS_OFF_MESSAGE = (url: string) =>
  `This studio runs tools for signed-in users only. Sign up at ${url} (free), or send an API key.`
export const API_SIGN_UP_MESSAGE = (url: string) =>
  `The API needs an account: sign up at ${url} and send an API key (Authorization: Bearer fs_live_…) or a session token (Authorization: Token …).`
export const GUEST_CREDITS_SHORT_MESSAGE = (cost: number, balance: number, url: string, bonus: number, renewal: string) =>
  `Not enough credits: this run costs ${cost} and your balance is ${balance}. ${guestRenewalRule(renewal)}: sign up at ${url} for ${formatCredits(bonus)}, or come back after ${renewal}.`

/** What a visitor's request says of where it comes from, as guestRunRefusal reads it. */
export interface GuestRequest {
  /** Sent to an /api/ path. */
  api: boolean
  /** Sent by one of the studio's own pages (Sec-Fetch-Site: same-origin). */
  fromStudioPage: boolean
  /** It carries a cookie naming a visitor that exists. */
  hasVisitorCookie: boolean
}

/**
 * Whether a visitor (signed in as nobody) may run a tool: not when GUEST_RUNS=off; not through
 * /api without a visitor cookie when API_REQUIRES_SIGNUP (a browser's own same-origin request,
 * the studio's pages enhanced with JavaScript, is not an API client).
 */
export function guestRunRefusal(request: GuestRequest): GuestRefusal | null {
  if (config().GUEST_RUNS === 'off') return { status: 401, message: GUEST_RUNS_OFF_MESSAGE(signUpUrl()), headers: {} }
  if (!config().API_REQUIRES_SIGNUP || request.hasVisitorCookie) return null
  if (request.api && !request.fromStudioPage) return { status: 401, message: API_SIGN_UP_MESSAGE(signUpUrl()), headers: { 'WWW-Authenticate': 'Bearer' } }
  return null
}

/** A visitor whose balance does not cover the run: sign up, or the time its credits renew. */
export function guestShortOfCredits(cost: number, balance: number, now: Date = new Date()): GuestRefusal {
  const renewal = nextGuestRenewal(now)
  return {
    status: 402,
    message: GUEST_CREDITS_SHORT_MESSAGE(cost, balance, signUpUrl(), config().SIGNUP_BONUS, utcTimeText(renewal)),
    headers: { 'Retry-After': String(Math.max(1, Math.ceil((renewal.getTime() - now.getTime()) / 1000))) },
  }
}
