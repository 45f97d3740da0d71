// The console's writes: the operator channel's own functions (the ones `npm run credits -- grant`,
// `grant-team` and `team-seats` run), called with the operator as the audit actor. Same ledger path,
// same rules, same messages; the ledger row and the audit entry commit in one transaction.
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { SessionUser } from '~/features/auth/session.server'
import { adjustUserCredits, parseAmount } from '~/features/operator/credits.server'
import { OperatorError } from '~/features/operator/errors'
import { adjustTeamCredits, parseSeats, setTeamSeats } from '~/features/operator/teams.server'
import { isUuid } from '~/utils/uuid'

export { OperatorError }

const NO_SUCH_USER = 'No such user.'

export async function grantUserCredits(operator: SessionUser, userId: string, input: { amount: string; reason: string }, db: DbOrTx = getDb()) {
  const amount = parseAmount(input.amount)
  if (!isUuid(userId)) throw new OperatorError(NO_SUCH_USER)
  return executeTx(db, async (trx) => {
    const user = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst()
    if (!user) throw new OperatorError(NO_SUCH_USER)
    return adjustUserCredits(user.email, amount, input.reason, trx, { userId: operator.id })
  })
}

/** The notice a grant form shows afterwards: a negative amount took credits back. */
export function grantNotice(input: { amount: string }): 'granted' | 'adjusted' {
  return parseAmount(input.amount) < 0 ? 'adjusted' : 'granted'
}

export async function grantTeamCredits(operator: SessionUser, teamId: string, input: { amount: string; reason: string }, db: DbOrTx = getDb()) {
  return adjustTeamCredits(teamId, parseAmount(input.amount), input.reason, db, { userId: operator.id })
}

export async function changeTeamSeats(operator: SessionUser, teamId: string, input: { seats: string }, db: DbOrTx = getDb()) {
  return setTeamSeats(teamId, parseSeats(input.seats), db, { userId: operator.id })
}
