// Who pays for a request: the signed-in user's account, else the visitor's (created on demand), or a
// team's account when the request works as a team (decision 061): a team key always; `X-Team: <id>`
// with a session or personal key; a browser session whose working team is set. The user must still
// be a member (checked here on every request, and again when a run is charged), so a removed member
// is back on their own account at once. Resolving a caller also applies the daily refresh (not to
// teams, which only operators fill), so every path that shows or spends credits sees today's balance.
import { sql } from 'kysely'
import { getDb, type DB } from '~/db/db.server'
import type { ApiKeyRef } from '~/features/api-keys/keys.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { type SessionUser } from '~/features/auth/session.server'
import { applyDailyRefresh, ensureUserAccount, utcDay } from '~/features/credits/ledger.server'
import { createVisitor, findVisitorAccount, guestPreviewBalance, guestRunRefusal, refreshVisitor, type GuestRefusal } from '~/features/credits/visitor.server'
import { addressGroup } from '~/features/security/client-address.server'
import { clientAddress } from '~/features/security/rate-limit.server'
import { readVisitorId, visitorCookieHeader } from './visitor-cookie.server'
import { memberAccount, teamAccount } from '~/features/teams/membership.server'

export { ensureUserAccount }

export interface Caller {
  accountId: string
  /** 'user' also when a signed-in user works as a team (teamId then says which). */
  source: 'user' | 'visitor'
  /** The team whose account pays, or null. userId stays the member (or the team key's creator). */
  teamId: string | null
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
  /**
   * Only with create:false: a browser without a (live) visitor cookie. Nothing was written; the
   * balance shown is the allowance a visitor would get. `visitorAddress` is what creating that
   * visitor needs (createVisitorCaller), so a run makes it later without resolving the request again.
   */
  | { kind: 'guest-preview'; balance: number; visitorAddress: string }
  /** `X-Team` names a team the caller may not work as: answer `status` with `message`. */
  | { kind: 'team-refused'; status: 401 | 403; message: string }
  /** Only with run:true: a visitor who may not run tools here (GUEST_RUNS, API_REQUIRES_SIGNUP). */
  | ({ kind: 'guest-refused' } & GuestRefusal)

/** The run rate limit's key: the paying account, and on a team each member's own share of it. */
export function callerRateKey(caller: Caller): string {
  return caller.teamId ? `${caller.accountId}:${caller.userId}` : caller.accountId
}

export const TEAM_HEADER = 'x-team'
export const TEAM_SIGN_IN_MESSAGE = 'Sign in (a session token or an API key) to work as a team with X-Team.'
export const NOT_TEAM_MEMBER_MESSAGE = 'You are not a member of the team named in X-Team.'
export const TEAM_KEY_OTHER_TEAM_MESSAGE = 'This API key belongs to another team than the one named in X-Team.'

interface TeamPayer {
  teamId: string
  accountId: string
  balance: number
}

/**
 * The team a signed-in request works as, if any: a team key's team; else X-Team's; else the session's
 * working team while the user is still a member of it (a stale choice falls back to the own balance).
 */
async function teamPayer(
  request: Request,
  auth: { kind: 'user'; workingTeamId: string | null; user: { id: string } } | { kind: 'key'; user: { id: string }; apiKey: ApiKeyRef },
  db: DB,
): Promise<TeamPayer | { refused: 403; message: string } | null> {
  const named = request.headers.get(TEAM_HEADER)?.trim() || null
  if (auth.kind === 'key' && auth.apiKey.teamId) {
    if (named && named !== auth.apiKey.teamId) return { refused: 403, message: TEAM_KEY_OTHER_TEAM_MESSAGE }
    const team = await teamAccount(auth.apiKey.teamId, db)
    if (!team) throw new Error(`team key ${auth.apiKey.id} names no team account`)
    return { teamId: team.teamId, accountId: team.accountId, balance: team.balance }
  }
  if (named) {
    const member = await memberAccount(named, auth.user.id, db)
    if (!member) return { refused: 403, message: NOT_TEAM_MEMBER_MESSAGE }
    return { teamId: member.teamId, accountId: member.accountId, balance: member.balance }
  }
  if (auth.kind !== 'user') return null
  if (!auth.workingTeamId) return null
  const member = await memberAccount(auth.workingTeamId, auth.user.id, db)
  return member ? { teamId: member.teamId, accountId: member.accountId, balance: member.balance } : null
}

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
  /** The request is to run a tool: a visitor who may not run one is refused before anything is written. */
  run?: boolean
  db?: DB
}

export async function resolveCaller(request: Request, options: ResolveOptions = {}): Promise<CallerResolution> {
  const now = options.now ?? new Date()
  const db = options.db ?? getDb()
  const auth = await getAuthentication(request, db)
  if (auth.kind === 'invalid' && !options.invalidAsGuest) return { kind: 'invalid-token' }

  if (auth.kind === 'user' || auth.kind === 'key') {
    const team = await teamPayer(request, auth, db)
    if (team && 'refused' in team) {
      // Pages never send X-Team; if one does, it is shown the user's own balance.
      if (!options.invalidAsGuest) return { kind: 'team-refused', status: team.refused, message: team.message }
    } else if (team) {
      return {
        kind: 'caller',
        caller: {
          accountId: team.accountId,
          source: 'user',
          teamId: team.teamId,
          userId: auth.user.id,
          visitorId: null,
          apiKey: auth.kind === 'key' ? auth.apiKey : null,
        },
        setCookie: null,
        balance: team.balance,
        user: auth.user,
      }
    }
    const account = await userAccount(auth.user.id, now, db)
    let balance = account.balance
    if (account.refreshDue) balance = (await applyDailyRefresh(account.accountId, 'user', now, db)).balance
    return {
      kind: 'caller',
      caller: {
        accountId: account.accountId,
        source: 'user',
        teamId: null,
        userId: auth.user.id,
        visitorId: null,
        apiKey: auth.kind === 'key' ? auth.apiKey : null,
      },
      setCookie: null,
      balance,
      user: auth.user,
    }
  }

  if (request.headers.get(TEAM_HEADER)?.trim() && !options.invalidAsGuest) {
    return { kind: 'team-refused', status: 401, message: TEAM_SIGN_IN_MESSAGE }
  }
  const visitorId = await readVisitorId(request)
  const existing = visitorId ? await findVisitorAccount(visitorId, now, db) : null
  const refused = options.run
    ? guestRunRefusal({
        api: new URL(request.url).pathname.startsWith('/api/'),
        fromStudioPage: request.headers.get('sec-fetch-site') === 'same-origin',
        hasVisitorCookie: existing !== null,
      })
    : null
  if (refused) return { kind: 'guest-refused', ...refused }
  // Guest credits are metered by the address a visitor comes from (decision 080).
  const address = addressGroup(clientAddress(request))
  if (existing) {
    let balance = existing.balance
    if (existing.refreshDue) balance = await refreshVisitor(address, existing.accountId, now, db)
    return {
      kind: 'caller',
      caller: { accountId: existing.accountId, source: 'visitor', teamId: null, userId: null, visitorId: existing.visitorId, apiKey: null },
      setCookie: null,
      balance,
      user: null,
    }
  }

  // No cookie, or one naming a visitor that no longer exists: treated alike. A new visitor is
  // limited per client address (its own identity, or the address's shared one: decision 080).
  if (options.create === false) return { kind: 'guest-preview', balance: await guestPreviewBalance(address, now, db), visitorAddress: address }
  return createVisitorCaller(address, { now, db })
}

/**
 * A new visitor coming from `visitorAddress` (an address group, as a guest-preview resolution carries
 * it), as the caller of this request, with the cookie that names it from now on.
 */
export async function createVisitorCaller(
  visitorAddress: string,
  options: Pick<ResolveOptions, 'now' | 'db'> = {},
): Promise<Extract<CallerResolution, { kind: 'caller' }>> {
  const created = await createVisitor(visitorAddress, options.now ?? new Date(), options.db ?? getDb())
  return {
    kind: 'caller',
    caller: {
      accountId: created.account.accountId,
      source: 'visitor',
      teamId: null,
      userId: null,
      visitorId: created.account.visitorId,
      apiKey: null,
    },
    setCookie: await visitorCookieHeader(created.account.visitorId),
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
