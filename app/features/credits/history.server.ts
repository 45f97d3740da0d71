// Reading an account: its transactions (newest first) and the figures of the /credits stat cards.
import { sql } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import type { TransactionView } from './display'

/**
 * An account's transactions, newest first. `onlyUserId`: just the rows of that member (a team's plain
 * member sees their own share of the team's ledger; see `ledgerRowsFor`).
 */
export async function listTransactions(accountId: string, limit: number, db: DbOrTx = getDb(), onlyUserId: string | null = null): Promise<TransactionView[]> {
  let query = db
    .selectFrom('credit_transactions')
    .select(['id', 'kind', 'delta', 'description', 'tool_slug', 'created_at'])
    .where('account_id', '=', accountId)
  if (onlyUserId) query = query.where('user_id', '=', onlyUserId)
  const rows = await query
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }))
}

export interface AccountSummary {
  balance: number
  lifetimeSpent: number
  /** Tool runs charged and not refunded. */
  usageEvents: number
  /** Bonuses, purchases and operator grants: every credit in that was not a refund. */
  topUps: number
}

export async function accountSummary(accountId: string, db: DbOrTx = getDb()): Promise<AccountSummary> {
  const row = await db
    .selectFrom('credit_accounts as a')
    .select([
      'a.balance',
      'a.lifetime_spent',
      sql<number>`(
        select count(*)::int from credit_transactions c
        where c.account_id = a.id and c.kind = 'consume'
          and not exists (select 1 from credit_transactions r where r.reverses_id = c.id)
      )`.as('usage_events'),
      sql<number>`(
        select count(*)::int from credit_transactions t
        where t.account_id = a.id and t.delta > 0 and t.reverses_id is null
          and t.kind in ('bonus', 'purchase', 'adjustment')
      )`.as('top_ups'),
    ])
    .where('a.id', '=', accountId)
    .executeTakeFirstOrThrow()
  return {
    balance: row.balance,
    lifetimeSpent: row.lifetime_spent,
    usageEvents: row.usage_events,
    topUps: row.top_ups,
  }
}
