// Visitor identity: a signed, httpOnly, SameSite=Lax cookie holding a visitors row's id. Each
// visitor has its own credit account. New visitors are rate-limited per client address, so
// clearing cookies in a loop does not mint free credits.
import { createCookie } from '@remix-run/node'
import { sql } from 'kysely'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { clientAddress, consumeRateLimit, type RateLimitRule } from '~/features/security/rate-limit.server'
import { singleton } from '~/utils/singleton.server'
import { grant, utcDay } from './ledger.server'

export const VISITOR_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60
export const GUEST_CREDITS_DESCRIPTION = 'Guest credits'

/**
 * 60 new visitors per address per day: enough for an office or a school behind one address (and
 * for the end-to-end suite, whose browsers all come from 127.0.0.1), while a script clearing
 * cookies in a loop gets at most 300 guest credits a day from it.
 */
export const NEW_VISITOR_RULE: RateLimitRule = { name: 'new-visitor', points: 60, durationSeconds: 24 * 60 * 60 }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function visitorCookie() {
  return singleton('visitor-cookie', () =>
    createCookie('fs_visitor', {
      httpOnly: true,
      sameSite: 'lax',
      secure: config().secureCookies,
      path: '/',
      maxAge: VISITOR_COOKIE_MAX_AGE_SECONDS,
      secrets: [config().sessionSecret],
    }),
  )
}

/** The visitor id from a correctly signed cookie, or null (no cookie, tampered, malformed). */
export async function readVisitorId(request: Request): Promise<string | null> {
  const value: unknown = await visitorCookie().parse(request.headers.get('cookie'))
  return typeof value === 'string' && UUID.test(value) ? value : null
}

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

export type NewVisitor =
  | { kind: 'created'; account: VisitorAccount; setCookie: string }
  | { kind: 'rate-limited'; retryAfterSeconds: number }

/**
 * A visitors row and its account holding today's guest allowance, recorded in the ledger so the
 * balance equals the sum of the deltas. One transaction; the rate limit is checked first.
 */
export async function createVisitor(request: Request, now: Date, db: DbOrTx = getDb()): Promise<NewVisitor> {
  const limit = await consumeRateLimit(NEW_VISITOR_RULE, clientAddress(request))
  if (!limit.ok) return { kind: 'rate-limited', retryAfterSeconds: limit.retryAfterSeconds }
  const allowance = config().GUEST_DAILY_CREDITS
  const account = await executeTx(db, async (trx) => {
    const visitor = await trx.insertInto('visitors').defaultValues().returning('id').executeTakeFirstOrThrow()
    const created = await trx
      .insertInto('credit_accounts')
      .values({ visitor_id: visitor.id, balance: 0, last_refresh_day: utcDay(now) })
      .returning('id')
      .executeTakeFirstOrThrow()
    if (allowance > 0) {
      await grant({ accountId: created.id, amount: allowance, kind: 'bonus', description: GUEST_CREDITS_DESCRIPTION }, trx)
    }
    return { accountId: created.id, visitorId: visitor.id, balance: allowance, refreshDue: false }
  })
  return { kind: 'created', account, setCookie: await visitorCookie().serialize(account.visitorId) }
}
