// Everything the /credits screen shows, read in one place. Page views never create a visitor: a
// browser without one sees the guest allowance and an empty ledger.
import { config } from '~/config.server'
import { getDb, type DB } from '~/db/db.server'
import { resolveCaller } from '~/features/account/caller.server'
import { RECENT_ACTIVITY_ON_CREDITS, type TransactionView } from '~/features/credits/display'
import { accountSummary, listTransactions, type AccountSummary } from '~/features/credits/history.server'
import { ledgerRowsFor } from '~/features/teams/membership.server'
import { listPackages, type CreditPackage } from '~/features/credits/packages.server'

export interface CreditsPageData {
  signedIn: boolean
  source: 'user' | 'visitor'
  summary: AccountSummary
  recent: TransactionView[]
  packages: CreditPackage[]
  purchasingPaused: boolean
  guestDailyCredits: number
  signupBonus: number
}

export async function loadCreditsPage(request: Request, options: { now?: Date; db?: DB } = {}): Promise<CreditsPageData> {
  const db = options.db ?? getDb()
  const resolved = await resolveCaller(request, { create: false, invalidAsGuest: true, now: options.now, db })
  const packages = await listPackages(db)
  const purchasingPaused = config().PURCHASING_PAUSED
  const allowances = { guestDailyCredits: config().GUEST_DAILY_CREDITS, signupBonus: config().SIGNUP_BONUS }
  if (resolved.kind !== 'caller') {
    const balance = resolved.kind === 'guest-preview' ? resolved.balance : config().GUEST_DAILY_CREDITS
    return {
      signedIn: false,
      source: 'visitor',
      summary: { balance, lifetimeSpent: 0, usageEvents: 0, topUps: 0 },
      recent: [],
      packages,
      purchasingPaused,
      ...allowances,
    }
  }
  const { accountId, source } = resolved.caller
  const [summary, recent] = [
    await accountSummary(accountId, db),
    await listTransactions(accountId, RECENT_ACTIVITY_ON_CREDITS, db, await ledgerRowsFor(resolved.caller, db)),
  ]
  return { signedIn: source === 'user', source, summary, recent, packages, purchasingPaused, ...allowances }
}
