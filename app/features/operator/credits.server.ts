// The operator command's work (scripts/credits.ts): adjust a user's balance by email and show an
// account. A positive amount is a grant; a negative one a correction that never takes the balance
// below zero. Both are recorded as kind 'adjustment' with the operator's reason.
import { z } from 'zod'
import { CLI_ACTOR } from '~/features/audit/actions'
import { channelOf, recordAudit, type AuditActor } from '~/features/audit/audit.server'
import { OperatorError } from '~/features/operator/errors'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { describeTransaction, formatActivityDate, type TransactionView } from '~/features/credits/display'
import { listTransactions } from '~/features/credits/history.server'
import { deduct, ensureUserAccount, grant } from '~/features/credits/ledger.server'

export { OperatorError }

export const MAX_ADJUSTMENT = 1_000_000

export function parseAmount(raw: string | undefined): number {
  if (raw === undefined || !/^[+-]?\d+$/.test(raw.trim())) {
    throw new OperatorError(`Amount must be a whole number of credits, e.g. 25 or -5 (got ${JSON.stringify(raw ?? '')}).`, 'invalid')
  }
  const amount = Number(raw)
  if (amount === 0) throw new OperatorError('Amount must not be 0.', 'invalid')
  if (Math.abs(amount) > MAX_ADJUSTMENT) throw new OperatorError(`Amount must be at most ${MAX_ADJUSTMENT.toLocaleString('en-US')} credits either way.`, 'invalid')
  return amount
}

async function userByEmail(email: string, db: DbOrTx) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst()
  if (!user) throw new OperatorError(`No user with the email ${email}.`)
  return user
}

export async function adjustUserCredits(
  email: string,
  amount: number,
  reason: string,
  db: DbOrTx = getDb(),
  actor: AuditActor = CLI_ACTOR,
): Promise<{ email: string; transactionId: number; balance: number }> {
  if (!reason.trim()) throw new OperatorError('A reason is required (it is shown in the ledger).')
  const description = reason.trim().slice(0, 200)
  return executeTx(db, async (trx) => {
    const user = await userByEmail(email, trx)
    const accountId = await ensureUserAccount(user.id, trx)
    const done = await adjustAccount(accountId, amount, description, user.email, trx)
    const details = { email: user.email, amount, reason: description, balanceBefore: done.balanceBefore, balance: done.balance, transactionId: done.transactionId, via: channelOf(actor) }
    await recordAudit({ actor, action: 'credits.grant', targetType: 'user', targetId: user.id, details }, trx)
    return { email: user.email, transactionId: done.transactionId, balance: done.balance }
  })
}

/**
 * A grant (amount > 0) or a correction that never takes the balance below zero, on one account.
 * Answers the balance before as well as after, for the audit entry (the ledger row and the balance
 * change in the same transaction, so after − amount is exactly what the account held).
 */
export async function adjustAccount(accountId: string, amount: number, description: string, whose: string, trx: DbOrTx) {
  if (amount > 0) {
    const granted = await grant({ accountId, amount, kind: 'adjustment', description }, trx)
    return { ...granted, balanceBefore: granted.balance - amount }
  }
  const result = await deduct({ accountId, amount: -amount, description }, trx)
  if (!result.ok) throw new OperatorError(`Cannot take ${-amount} credits from ${whose}: the balance is only ${result.balance}.`)
  return { transactionId: result.transactionId, balance: result.balance, balanceBefore: result.balance - amount }
}

export interface AccountReport {
  email: string
  balance: number
  lifetimeSpent: number
  transactions: TransactionView[]
}

export async function showUserCredits(email: string, limit = 10, db: DbOrTx = getDb()): Promise<AccountReport> {
  const user = await userByEmail(email, db)
  const accountId = await ensureUserAccount(user.id, db)
  const account = await db
    .selectFrom('credit_accounts')
    .select(['balance', 'lifetime_spent'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow()
  return {
    email: user.email,
    balance: account.balance,
    lifetimeSpent: account.lifetime_spent,
    transactions: await listTransactions(accountId, limit, db),
  }
}

export function formatReport(report: AccountReport): string {
  const lines = [
    `${report.email}: ${report.balance} credits (lifetime spent ${report.lifetimeSpent})`,
    report.transactions.length ? 'Latest transactions:' : 'No transactions yet.',
  ]
  for (const t of report.transactions) {
    const row = describeTransaction(t)
    lines.push(`  #${t.id}  ${formatActivityDate(t.created_at)}  ${row.label.padEnd(10)} ${row.delta.padStart(7)}  ${row.detail ?? ''}`.trimEnd())
  }
  return lines.join('\n')
}

/**
 * The credit commands of the operator channel (app/features/operator/commands.server.ts): JSON
 * arguments in, JSON answers out. Refusals are OperatorError, which the channel reports as such.
 */
export const creditCommands = {
  grant: {
    args: z.object({ email: z.string().min(1), amount: z.number().int(), reason: z.string() }),
    run: (args: { email: string; amount: number; reason: string }, db: DbOrTx) =>
      adjustUserCredits(args.email, parseAmount(String(args.amount)), args.reason, db),
  },
  show: {
    args: z.object({ email: z.string().min(1), limit: z.number().int().min(1).max(100).default(10) }),
    run: (args: { email: string; limit: number }, db: DbOrTx) => showUserCredits(args.email, args.limit, db),
  },
}
