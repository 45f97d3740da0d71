// The operator's team commands (scripts/credits.ts, through the operator command table, so they
// work while the studio runs): grant credits to a team (a negative amount takes credits back, never
// below zero) and set a team's seat limit. A team is named by its id or its exact name; a name two
// teams share is refused with their ids.
import { z } from 'zod'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { CLI_ACTOR } from '~/features/audit/actions'
import { channelOf, recordAudit, type AuditActor } from '~/features/audit/audit.server'
import { adjustAccount, parseAmount } from '~/features/operator/credits.server'
import { OperatorError } from '~/features/operator/errors'
import { isUuid } from '~/utils/uuid'

export const MAX_SEAT_LIMIT = 10_000

async function findTeam(ref: string, db: DbOrTx) {
  const wanted = ref.trim()
  const columns = ['t.id', 't.name', 't.seat_limit', 'a.id as accountId'] as const
  const base = () => db.selectFrom('teams as t').innerJoin('credit_accounts as a', 'a.team_id', 't.id').select(columns)
  if (isUuid(wanted)) {
    const byId = await base().where('t.id', '=', wanted).executeTakeFirst()
    if (byId) return byId
  }
  const byName = await base().where('t.name', '=', wanted).limit(5).execute()
  if (byName.length === 0) throw new OperatorError(`No team with the id or name "${wanted}".`)
  if (byName.length > 1) throw new OperatorError(`${byName.length} teams are named "${wanted}": name one by its id (${byName.map((t) => t.id).join(', ')}).`)
  return byName[0]
}

export async function adjustTeamCredits(
  team: string,
  amount: number,
  reason: string,
  db: DbOrTx = getDb(),
  actor: AuditActor = CLI_ACTOR,
): Promise<{ team: { id: string; name: string }; transactionId: number; balance: number }> {
  if (!reason.trim()) throw new OperatorError('A reason is required (it is shown in the ledger).')
  const description = reason.trim().slice(0, 200)
  return executeTx(db, async (trx) => {
    const found = await findTeam(team, trx)
    const done = await adjustAccount(found.accountId, amount, description, `team ${found.name}`, trx)
    const details = { name: found.name, amount, reason: description, balanceBefore: done.balanceBefore, balance: done.balance, transactionId: done.transactionId, via: channelOf(actor) }
    await recordAudit({ actor, action: 'team.credits.grant', targetType: 'team', targetId: found.id, details }, trx)
    return { team: { id: found.id, name: found.name }, transactionId: done.transactionId, balance: done.balance }
  })
}

/**
 * Sets a team's seat limit. Lowering it below the seats in use removes nobody: new invites are
 * refused until members leave or invites are withdrawn, and pending invites can be accepted while
 * members are fewer than the limit (the seat rule: teams.server.ts).
 */
export async function setTeamSeats(
  team: string,
  seats: number,
  db: DbOrTx = getDb(),
  actor: AuditActor = CLI_ACTOR,
): Promise<{ team: { id: string; name: string }; seats: number; used: number }> {
  if (!Number.isSafeInteger(seats) || seats < 1 || seats > MAX_SEAT_LIMIT) {
    throw new OperatorError(`Seats must be a whole number from 1 to ${MAX_SEAT_LIMIT} (got ${seats}).`, 'invalid')
  }
  return executeTx(db, async (trx) => {
    const found = await findTeam(team, trx)
    await trx.updateTable('teams').set({ seat_limit: seats }).where('id', '=', found.id).execute()
    const members = await trx.selectFrom('team_members').select((eb) => eb.fn.countAll<number>().as('n')).where('team_id', '=', found.id).executeTakeFirstOrThrow()
    const details = { name: found.name, seats, previous: found.seat_limit, members: Number(members.n), via: channelOf(actor) }
    await recordAudit({ actor, action: 'team.seats.set', targetType: 'team', targetId: found.id, details }, trx)
    return { team: { id: found.id, name: found.name }, seats, used: Number(members.n) }
  })
}

export function parseSeats(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) throw new OperatorError(`Seats must be a whole number, e.g. 10 (got ${JSON.stringify(raw ?? '')}).`, 'invalid')
  return Number(raw)
}

/** The team commands of the operator channel (app/features/operator/commands.server.ts). */
export const teamCommands = {
  'grant-team': {
    args: z.object({ team: z.string().min(1), amount: z.number().int(), reason: z.string() }),
    run: (args: { team: string; amount: number; reason: string }, db: DbOrTx) => adjustTeamCredits(args.team, parseAmount(String(args.amount)), args.reason, db),
  },
  'team-seats': {
    args: z.object({ team: z.string().min(1), seats: z.number().int() }),
    run: (args: { team: string; seats: number }, db: DbOrTx) => setTeamSeats(args.team, args.seats, db),
  },
}
