// The credit API's reads: a caller's balance (spec §3's Credits object) and a user's transactions.
import { getAuthentication } from '~/features/account/authentication.server'
import { getDb, type DB } from '~/db/db.server'
import { resolveCaller } from '~/features/account/caller.server'
import type { TransactionView } from '~/features/credits/display'
import { listTransactions } from '~/features/credits/history.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { ledgerRowsFor } from '~/features/teams/membership.server'

export type CreditsObject =
  | { source: 'visitor'; balance: number }
  | { source: 'user'; balance: number; lifetime_spent: number; latest_transaction: TransactionView | null }

export type BalanceOutcome =
  | { kind: 'balance'; credits: CreditsObject; setCookie: string | null }
  | { kind: 'invalid-token' }
  | { kind: 'team-refused'; status: 401 | 403; message: string }

export async function creditBalance(request: Request, options: { now?: Date; db?: DB } = {}): Promise<BalanceOutcome> {
  const db = options.db ?? getDb()
  const resolved = await resolveCaller(request, { create: true, now: options.now, db })
  if (resolved.kind === 'invalid-token' || resolved.kind === 'team-refused') return resolved
  // Reading a balance is not a run: only run:true resolutions refuse a visitor.
  if (resolved.kind === 'guest-refused') throw new Error('a balance read was refused as a run')
  if (resolved.kind === 'guest-preview') {
    return { kind: 'balance', credits: { source: 'visitor', balance: resolved.balance }, setCookie: null }
  }
  const { caller, setCookie } = resolved
  if (caller.source === 'visitor') {
    return { kind: 'balance', credits: { source: 'visitor', balance: resolved.balance }, setCookie }
  }
  const account = await db
    .selectFrom('credit_accounts')
    .select(['balance', 'lifetime_spent'])
    .where('id', '=', caller.accountId)
    .executeTakeFirstOrThrow()
  const [latest] = await listTransactions(caller.accountId, 1, db, await ledgerRowsFor(caller, db))
  return {
    kind: 'balance',
    credits: {
      source: 'user',
      balance: account.balance,
      lifetime_spent: account.lifetime_spent,
      latest_transaction: latest ?? null,
    },
    setCookie,
  }
}

export const DEFAULT_TRANSACTIONS_LIMIT = 50
export const MAX_TRANSACTIONS_LIMIT = 100

export type TransactionsOutcome =
  | { kind: 'transactions'; results: TransactionView[] }
  | { kind: 'anonymous' }
  | { kind: 'invalid-token' }
  | { kind: 'bad-limit' }

export async function userTransactions(request: Request, rawLimit: string | null, db: DB = getDb()): Promise<TransactionsOutcome> {
  const limit = rawLimit === null || rawLimit === '' ? DEFAULT_TRANSACTIONS_LIMIT : Number(rawLimit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TRANSACTIONS_LIMIT) return { kind: 'bad-limit' }
  const auth = await getAuthentication(request, db)
  if (auth.kind === 'anonymous') return { kind: 'anonymous' }
  if (auth.kind === 'invalid') return { kind: 'invalid-token' }
  const accountId = await ensureUserAccount(auth.user.id, db)
  return { kind: 'transactions', results: await listTransactions(accountId, limit, db) }
}
