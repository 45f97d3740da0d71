// What /dashboard shows: the user's account figures (from the credits ledger) and who they are.
import { sql } from 'kysely'
import { getDb, type DB } from '~/db/db.server'
import { resolveCaller } from '~/features/account/caller.server'
import { ledgerRowsFor } from '~/features/teams/membership.server'
import { RECENT_ACTIVITY_ON_DASHBOARD, type TransactionView } from '~/features/credits/display'
import { accountSummary, listTransactions, type AccountSummary } from '~/features/credits/history.server'
import { requireUser } from '~/features/account/guards.server'
import type { SessionUser } from '~/features/auth/session.server'

export interface DashboardData {
  user: SessionUser
  source: 'user' | 'visitor'
  summary: AccountSummary
  totalTransactions: number
  lastActivity: { kind: TransactionView['kind']; created_at: string } | null
  recent: TransactionView[]
  /** The server's clock when this was read, so "5 minutes ago" reads the same in HTML and after hydration. */
  now: string
}

export async function loadDashboard(request: Request, db: DB = getDb()): Promise<DashboardData> {
  const { user } = await requireUser(request)
  // Resolving the caller also applies today's refresh, as every view of a balance does.
  const resolved = await resolveCaller(request, { create: false, invalidAsGuest: true, db })
  if (resolved.kind !== 'caller') throw new Error('a signed-in user always resolves to an account')
  const { accountId, source } = resolved.caller
  const summary = await accountSummary(accountId, db)
  const onlyUserId = await ledgerRowsFor(resolved.caller, db)
  let counted = db.selectFrom('credit_transactions').select(sql<number>`count(*)::int`.as('total')).where('account_id', '=', accountId)
  if (onlyUserId) counted = counted.where('user_id', '=', onlyUserId)
  const counts = await counted.executeTakeFirstOrThrow()
  const recent = await listTransactions(accountId, RECENT_ACTIVITY_ON_DASHBOARD, db, onlyUserId)
  const latest = recent[0]
  return {
    user,
    source,
    summary,
    totalTransactions: counts.total,
    lastActivity: latest ? { kind: latest.kind, created_at: latest.created_at } : null,
    recent,
    now: new Date().toISOString(),
  }
}
