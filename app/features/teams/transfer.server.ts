// A member (or owner or admin) moves credits from their own account into a team's: two ledger entries
// (both through writeEntry) and an audit row in one transaction, so either all three are written or
// none is. The member's own account row is locked first, so concurrent transfers by one user queue
// and each sees the balance the one before left: none can overdraw it, nor dip into the daily floor.
// What may move is the balance above USER_DAILY_FLOOR (decision 140): the floor is a personal daily
// allowance, and moving it out would have the daily refresh fill it again, every day, for the team.
import { randomUUID } from 'node:crypto'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { recordAudit } from '~/features/audit/audit.server'
import { ensureUserAccount, LedgerError, writeEntry } from '~/features/credits/ledger.server'
import { consumeRateLimit, type RateLimitRule } from '~/features/security/rate-limit.server'
import { memberAccount } from './membership.server'
import { TEST_KEY_NO_LIVE_CREDITS } from '~/features/api-keys/messages'
import { TEAM_NOT_FOUND } from './messages'
import { TeamError } from './teams.server'
import {
  MAX_TRANSFER,
  movable,
  TRANSFER_AMOUNT_MESSAGE,
  TRANSFER_IN_DESCRIPTION,
  TRANSFER_RATE_LIMITED,
  transferOutDescription,
  TRANSFERS_PER_HOUR,
  transferTooLarge,
} from './transfer'

export const TEAM_TRANSFER_RATE: RateLimitRule = { name: 'team-transfer', points: TRANSFERS_PER_HOUR, durationSeconds: 3600 }

export interface TransferDone {
  id: string
  teamId: string
  teamName: string
  amount: number
  /** The user's own balance after the transfer. */
  balance: number
  teamBalance: number
}

/** What the team page shows beside the form: the user's own balance and what of it may move. */
export async function transferAllowance(userId: string, db: DbOrTx = getDb()): Promise<{ balance: number; movable: number; floor: number }> {
  const row = await db.selectFrom('credit_accounts').select('balance').where('user_id', '=', userId).executeTakeFirst()
  const balance = row?.balance ?? 0
  const floor = config().USER_DAILY_FLOOR
  return { balance, movable: movable(balance, floor), floor }
}

/**
 * by.testKey: the call came with a test key (fs_test_), which is "never charged" and so never moves
 * live credits either (decision 162): refused with 403 before anything else.
 */
export async function moveCreditsToTeam(
  userId: string,
  teamId: string,
  amount: number,
  by: { testKey?: boolean } = {},
  dbOrTx: DbOrTx = getDb(),
): Promise<TransferDone> {
  if (by.testKey) throw new TeamError(403, TEST_KEY_NO_LIVE_CREDITS)
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_TRANSFER) {
    throw new TeamError(400, TRANSFER_AMOUNT_MESSAGE)
  }
  const limited = await consumeRateLimit(TEAM_TRANSFER_RATE, userId)
  if (!limited.ok) throw new TeamError(429, `${TRANSFER_RATE_LIMITED} Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`)
  const floor = config().USER_DAILY_FLOOR
  const id = randomUUID()
  return executeTx(dbOrTx, async (trx) => {
    const team = await memberAccount(teamId, userId, trx)
    if (!team) throw new TeamError(404, TEAM_NOT_FOUND)
    const ownId = await ensureUserAccount(userId, trx)
    const own = await trx.selectFrom('credit_accounts').select('balance').where('id', '=', ownId).forUpdate().executeTakeFirstOrThrow()
    if (amount > movable(own.balance, floor)) throw new TeamError(402, transferTooLarge(amount, own.balance, floor))
    const key = `transfer:${id}`
    const out = await writeEntry({ accountId: ownId, delta: -amount, kind: 'adjustment', description: transferOutDescription(team.teamName), idempotencyKey: key }, trx)
    if (!out.ok) throw new LedgerError(`Transfer ${id}: the member's entry was not written (${out.reason})`)
    const into = await writeEntry(
      { accountId: team.accountId, delta: amount, kind: 'adjustment', description: TRANSFER_IN_DESCRIPTION, idempotencyKey: key, userId },
      trx,
    )
    if (!into.ok) throw new LedgerError(`Transfer ${id}: the team's entry was not written (${into.reason})`)
    await recordAudit(
      {
        actor: { userId },
        action: 'team.credits.transfer',
        targetType: 'team',
        targetId: team.teamId,
        details: { name: team.teamName, amount, transferId: id, fromTransactionId: out.transactionId, toTransactionId: into.transactionId, balance: into.balance },
      },
      trx,
    )
    return { id, teamId: team.teamId, teamName: team.teamName, amount, balance: out.balance, teamBalance: into.balance }
  })
}
