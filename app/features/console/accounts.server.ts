// What the operator console reads about accounts: users and teams with their balances (searched by
// email, name or team name, a page at a time), and one user or team with its latest ledger rows.
import { sql } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import { listAudit, type AuditFilters } from '~/features/audit/audit.server'
import { isUuid } from '~/utils/uuid'

import { CONSOLE_PAGE_SIZE, offsetOf, pageOf, type Page } from '../../utils/paging'

const LEDGER_ROWS = 20

/** A LIKE pattern matching `text` anywhere, its own % _ and \ taken literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

export interface UserAccountRow {
  id: string
  email: string
  name: string | null
  verified: boolean
  balance: number
  lifetimeSpent: number
  createdAt: Date
}

export async function searchUsers(query: string, page = 1, db: DbOrTx = getDb()): Promise<Page<UserAccountRow>> {
  let select = db
    .selectFrom('users as u')
    .leftJoin('credit_accounts as a', 'a.user_id', 'u.id')
    .select([
      'u.id',
      'u.email',
      sql<string | null>`nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '')`.as('name'),
      sql<boolean>`u.email_verified_at is not null`.as('verified'),
      sql<number>`coalesce(a.balance, 0)`.as('balance'),
      sql<number>`coalesce(a.lifetime_spent, 0)`.as('lifetimeSpent'),
      'u.created_at as createdAt',
    ])
  const q = query.trim()
  if (q) {
    const pattern = containing(q)
    select = select.where((eb) =>
      eb.or([eb('u.email', 'ilike', pattern), eb(sql`concat_ws(' ', u.first_name, u.last_name)`, 'ilike', pattern)]),
    )
  }
  const rows = await select.orderBy('u.created_at', 'desc').orderBy('u.id').limit(CONSOLE_PAGE_SIZE + 1).offset(offsetOf(page)).execute()
  return pageOf(rows)
}

export interface TeamAccountRow {
  id: string
  name: string
  seatLimit: number
  members: number
  balance: number
  createdAt: Date
}

function teamsQuery(db: DbOrTx) {
  return db
    .selectFrom('teams as t')
    .innerJoin('credit_accounts as a', 'a.team_id', 't.id')
    .select((eb) => [
      't.id',
      't.name',
      't.seat_limit as seatLimit',
      eb.selectFrom('team_members as m').select(sql<number>`count(*)::int`.as('n')).whereRef('m.team_id', '=', 't.id').as('members'),
      'a.balance',
      'a.id as accountId',
      't.created_at as createdAt',
    ])
}

export async function searchTeams(query: string, page = 1, db: DbOrTx = getDb()): Promise<Page<TeamAccountRow>> {
  let select = teamsQuery(db)
  const q = query.trim()
  if (q) select = select.where((eb) => eb.or([eb('t.name', 'ilike', containing(q)), ...(isUuid(q) ? [eb('t.id', '=', q)] : [])]))
  const rows = await select.orderBy('t.created_at', 'desc').orderBy('t.id').limit(CONSOLE_PAGE_SIZE + 1).offset(offsetOf(page)).execute()
  return pageOf(rows.map(({ accountId: _accountId, ...row }) => ({ ...row, members: row.members ?? 0 })))
}

export interface LedgerRow {
  id: number
  at: Date
  kind: string
  delta: number
  balanceAfter: number
  description: string | null
}

async function ledgerOf(accountId: string | null, db: DbOrTx): Promise<LedgerRow[]> {
  if (!accountId) return []
  return db
    .selectFrom('credit_transactions')
    .select(['id', 'created_at as at', 'kind', 'delta', 'balance_after as balanceAfter', 'description'])
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(LEDGER_ROWS)
    .execute()
}

export async function userDetail(userId: string, db: DbOrTx = getDb()) {
  if (!isUuid(userId)) return null
  const user = await db
    .selectFrom('users as u')
    .leftJoin('credit_accounts as a', 'a.user_id', 'u.id')
    .select(['u.id', 'u.email', 'u.first_name', 'u.last_name', 'u.created_at', 'u.email_verified_at', 'a.id as accountId', 'a.balance', 'a.lifetime_spent'])
    .where('u.id', '=', userId)
    .executeTakeFirst()
  if (!user) return null
  const teams = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.id', 't.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('t.name')
    .execute()
  return {
    id: user.id,
    email: user.email,
    name: [user.first_name, user.last_name].filter(Boolean).join(' ') || null,
    createdAt: user.created_at,
    verified: user.email_verified_at !== null,
    balance: user.balance ?? 0,
    lifetimeSpent: user.lifetime_spent ?? 0,
    teams,
    ledger: await ledgerOf(user.accountId, db),
  }
}

export async function teamDetail(teamId: string, db: DbOrTx = getDb()) {
  if (!isUuid(teamId)) return null
  const team = await teamsQuery(db).where('t.id', '=', teamId).executeTakeFirst()
  if (!team) return null
  const members = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'm.role', 'm.monthly_cap as cap'])
    .where('m.team_id', '=', teamId)
    .orderBy(sql`case m.role when 'owner' then 0 when 'admin' then 1 else 2 end`)
    .orderBy('u.email')
    .execute()
  const { accountId, ...rest } = team
  return { ...rest, members: members.length, memberList: members, ledger: await ledgerOf(accountId, db) }
}

/** The latest audit entries a user's or a team's console page shows. */
const RECENT_AUDIT_ROWS = 10

export async function recentAudit(filters: AuditFilters, db: DbOrTx = getDb()) {
  return (await listAudit(filters, 1, db)).rows.slice(0, RECENT_AUDIT_ROWS)
}
