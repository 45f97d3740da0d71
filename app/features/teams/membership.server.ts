// The team rows the rest of the app reads: who is a member (and as what), a team's credit account,
// and what a member spent of it this month. The access rule lives here, in one place:
//
//   A team's balance, jobs, results, batches and keys are reached only through the team's credit
//   account, and a request is given that account only while its user is a member (checked on every
//   request by resolveCaller with memberAccount below, and again under a lock when a run is charged).
//   So ownership checks stay "the job's account is the caller's account": a removed member's requests
//   resolve to their own account and find nothing of the team's (404).
import { sql } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import { isUuid } from '~/utils/uuid'
import type { TeamRole } from './roles'

export interface MemberAccount {
  teamId: string
  teamName: string
  accountId: string
  balance: number
  role: TeamRole
}

/** The team's account for one of its members; null when the user is not (or no longer) a member. */
export async function memberAccount(teamId: string, userId: string, db: DbOrTx = getDb()): Promise<MemberAccount | null> {
  if (!isUuid(teamId)) return null
  const row = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .innerJoin('credit_accounts as a', 'a.team_id', 'm.team_id')
    .select(['t.id as teamId', 't.name as teamName', 'a.id as accountId', 'a.balance', 'm.role'])
    .where('m.team_id', '=', teamId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst()
  return row ?? null
}

/** A team's account (for its keys, which charge the team whoever created them). */
export async function teamAccount(teamId: string, db: DbOrTx = getDb()) {
  if (!isUuid(teamId)) return null
  return (
    (await db
      .selectFrom('teams as t')
      .innerJoin('credit_accounts as a', 'a.team_id', 't.id')
      .select(['t.id as teamId', 't.name as teamName', 'a.id as accountId', 'a.balance'])
      .where('t.id', '=', teamId)
      .executeTakeFirst()) ?? null
  )
}

/** The first instant of the UTC calendar month of `now`: caps and "spent this month" count from it. */
export function monthStart(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
}

/**
 * A run's charges and their refunds on an account, net (refunds carry the charge's member too). Grants
 * and operator corrections are not spending.
 */
export const SPEND_ROWS = sql<boolean>`(kind = 'consume' or reverses_id is not null)`

/** Credits `userId` spent of the account since `since`, net of refunds. */
export async function memberSpend(accountId: string, userId: string, since: Date, db: DbOrTx = getDb()): Promise<number> {
  const row = await db
    .selectFrom('credit_transactions')
    .select(sql<number>`coalesce(-sum(delta), 0)::int`.as('spent'))
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .where(SPEND_ROWS)
    .executeTakeFirstOrThrow()
  return row.spent
}

/** Every member's spend since `since` on the account, by user id. */
export async function spendByMember(accountId: string, since: Date, db: DbOrTx = getDb()): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('credit_transactions')
    .select(['user_id', sql<number>`coalesce(-sum(delta), 0)::int`.as('spent')])
    .where('account_id', '=', accountId)
    .where('user_id', 'is not', null)
    .where('created_at', '>=', since)
    .where(SPEND_ROWS)
    .groupBy('user_id')
    .execute()
  return new Map(rows.map((r) => [r.user_id!, r.spent]))
}
