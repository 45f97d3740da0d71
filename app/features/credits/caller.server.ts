// Who pays for a request: the signed-in user's account, else the visitor's (created on demand).
// Resolving a caller also applies the daily refresh, so every path that shows or spends credits
// sees today's balance.
import { sql } from 'kysely'
import { getDb, type DB } from '~/db/db.server'
import type { ApiKeyRef } from '~/features/api-keys/keys.server'
import { getAuthentication, type SessionUser } from '~/features/auth/session.server'
import { applyDailyRefresh, ensureUserAccount, utcDay } from './ledger.server'
import { createVisitor, findVisitorAccount, readVisitorId } from './visitor.server'
import { config } from '~/config.server'

export { ensureUserAccount }

export interface Caller {
  accountId: string
  source: 'user' | 'visitor'
  userId: string | null
  visitorId: string | null
  /** The API key the request came with (Authorization: Bearer), else null. */
  apiKey: ApiKeyRef | null
}

export type CallerResolution =
  /** setCookie: a new visitor cookie to send back, if one was created. */
  | { kind: 'caller'; caller: Caller; setCookie: string | null; balance: number; user: SessionUser | null }
  /** A Token header or session cookie that names no live session: answer 401. */
  | { kind: 'invalid-token' }
  /** Too many new visitors from this address. */
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  /**
   * Only with create:false: a browser without a (live) visitor cookie. Nothing was written; the
   * balance shown is the allowance a visitor would get.
   */
  | { kind: 'guest-preview'; balance: number }

export interface ResolveOptions {
  /** Create a visitor (and its cookie) when the browser has none. Default true. */
  create?: boolean
  /** The clock, for the daily refresh (tests move it across midnight). */
  now?: Date
  /**
   * Treat a session cookie or token that names no live session as no sign-in at all (pages do:
   * an expired session shows the visitor's balance). API routes keep the default and answer 401.
   */
  invalidAsGuest?: boolean
  db?: DB
}

export async function resolveCaller(request: Request, options: ResolveOptions = {}): Promise<CallerResolution> {
  const now = options.now ?? new Date()
  const db = options.db ?? getDb()
  const auth = await getAuthentication(request, db)
  if (auth.kind === 'invalid' && !options.invalidAsGuest) return { kind: 'invalid-token' }

  if (auth.kind === 'user' || auth.kind === 'key') {
    const account = await userAccount(auth.user.id, now, db)
    let balance = account.balance
    if (account.refreshDue) balance = (await applyDailyRefresh(account.accountId, 'user', now, db)).balance
    return {
      kind: 'caller',
      caller: {
        accountId: account.accountId,
        source: 'user',
        userId: auth.user.id,
        visitorId: null,
        apiKey: auth.kind === 'key' ? auth.apiKey : null,
      },
      setCookie: null,
      balance,
      user: auth.user,
    }
  }

  const visitorId = await readVisitorId(request)
  const existing = visitorId ? await findVisitorAccount(visitorId, now, db) : null
  if (existing) {
    let balance = existing.balance
    if (existing.refreshDue) balance = (await applyDailyRefresh(existing.accountId, 'visitor', now, db)).balance
    return {
      kind: 'caller',
      caller: { accountId: existing.accountId, source: 'visitor', userId: null, visitorId: existing.visitorId, apiKey: null },
      setCookie: null,
      balance,
      user: null,
    }
  }

  // No cookie, or one naming a visitor that no longer exists: treated alike.
  if (options.create === false) return { kind: 'guest-preview', balance: config().GUEST_DAILY_CREDITS }
  const created = await createVisitor(request, now, db)
  if (created.kind === 'rate-limited') return created
  return {
    kind: 'caller',
    caller: {
      accountId: created.account.accountId,
      source: 'visitor',
      userId: null,
      visitorId: created.account.visitorId,
      apiKey: null,
    },
    setCookie: created.setCookie,
    balance: created.account.balance,
    user: null,
  }
}

/** The user's account in one read when it exists (the usual case), created otherwise. */
async function userAccount(userId: string, now: Date, db: DB) {
  const read = () =>
    db
      .selectFrom('credit_accounts')
      .select([
        'id',
        'balance',
        sql<boolean>`last_refresh_day is null or last_refresh_day < ${utcDay(now)}::date`.as('due'),
      ])
      .where('user_id', '=', userId)
      .executeTakeFirst()
  let row = await read()
  if (!row) {
    await ensureUserAccount(userId, db)
    row = await read()
  }
  if (!row) throw new Error(`Could not create a credit account for user ${userId}`)
  return { accountId: row.id, balance: row.balance, refreshDue: row.due }
}
