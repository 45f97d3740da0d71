// The charge of one run (a single run, a job, or a batch item when it starts), for every payer: a
// personal or visitor account is charged as before; a team account is charged on behalf of the
// member, after two checks made under the member's row lock in the charge's own transaction:
// the user is still a member (or the run came with one of the team's keys), and the run does not
// pass the member's monthly cap. The lock queues a member's concurrent charges, so 50 runs at once
// see each other's spend and cannot pass the cap together; the ledger's conditional UPDATE keeps
// the team's balance from going below zero across members.
import { executeTx, type DbOrTx } from '~/db/db.server'
import { charge, type ChargeInput, type ChargeResult } from '~/features/credits/ledger.server'
import { memberSpend, monthStart } from '~/features/teams/membership.server'
import { capMessage, NOT_A_MEMBER_ANY_MORE, teamBalanceShort } from '~/features/teams/messages'

export interface RunCharge extends ChargeInput {
  /** The signed-in user behind the run (the member, when a team pays). */
  userId: string | null
  /**
   * null when the caller resolved the account as a personal or visitor one (Caller.teamId): an
   * account never changes owner, so the team lookup is skipped. Undefined: looked up.
   */
  teamId?: string | null
}

export type RunChargeResult =
  | Extract<ChargeResult, { ok: true }>
  /** Refused, nothing charged: the status and message to answer (402 short or capped, 403 not a member). */
  | { ok: false; reason: 'insufficient' | 'cap' | 'not-member'; status: 402 | 403; message: string; balance: number }

export function insufficientMessage(cost: number, balance: number): string {
  return `Not enough credits: this run costs ${cost} and your balance is ${balance}.`
}

export async function chargeRun(input: RunCharge, dbOrTx: DbOrTx, now: Date = new Date()): Promise<RunChargeResult> {
  return executeTx(dbOrTx, async (trx) => {
    const team =
      input.teamId === null
        ? undefined
        : await trx
            .selectFrom('credit_accounts as a')
            .innerJoin('teams as t', 't.id', 'a.team_id')
            .select(['t.id', 't.name'])
            .where('a.id', '=', input.accountId)
            .executeTakeFirst()
    if (!team) {
      // The member is recorded on team accounts only.
      const charged = await charge({ ...input, userId: null }, trx)
      if (charged.ok) return charged
      return refused('insufficient', 402, insufficientMessage(input.amount, charged.balance), charged.balance)
    }

    const member = input.userId
      ? await trx
          .selectFrom('team_members')
          .select('monthly_cap')
          .where('team_id', '=', team.id)
          .where('user_id', '=', input.userId)
          .forUpdate()
          .executeTakeFirst()
      : undefined
    if (!member) {
      // A team key keeps charging the team (its creator may have left: see decision 062).
      const teamKey = input.apiKeyId
        ? await trx
            .selectFrom('api_keys')
            .select('id')
            .where('id', '=', input.apiKeyId)
            .where('team_id', '=', team.id)
            .where('revoked_at', 'is', null)
            .executeTakeFirst()
        : undefined
      if (!teamKey) return refused('not-member', 403, NOT_A_MEMBER_ANY_MORE, await balanceOf(trx, input.accountId))
    }
    if (member && member.monthly_cap !== null) {
      const used = await memberSpend(input.accountId, input.userId!, monthStart(now), trx)
      if (used + input.amount > member.monthly_cap) {
        return refused('cap', 402, capMessage(member.monthly_cap, team.name, used), await balanceOf(trx, input.accountId))
      }
    }
    const charged = await charge(input, trx)
    if (charged.ok) return charged
    return refused('insufficient', 402, teamBalanceShort(input.amount, team.name, charged.balance), charged.balance)
  })
}

/**
 * A member's monthly cap on a team account and what they used of it this month; null when no cap
 * applies (a personal account, a team key's run, or no cap set). For checks before a run is queued (a
 * batch up front); the charge itself checks again under the member's lock.
 */
export async function memberCap(accountId: string, userId: string | null, dbOrTx: DbOrTx, now: Date = new Date()): Promise<{ cap: number; used: number; teamName: string } | null> {
  if (!userId) return null
  const row = await dbOrTx
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .innerJoin('credit_accounts as a', 'a.team_id', 'm.team_id')
    .select(['m.monthly_cap', 't.name'])
    .where('a.id', '=', accountId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst()
  if (!row || row.monthly_cap === null) return null
  return { cap: row.monthly_cap, used: await memberSpend(accountId, userId, monthStart(now), dbOrTx), teamName: row.name }
}

type RunRefusal = Exclude<RunChargeResult, { ok: true }>

function refused(reason: RunRefusal['reason'], status: RunRefusal['status'], message: string, balance: number): RunRefusal {
  return { ok: false, reason, status, message, balance }
}

async function balanceOf(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db.selectFrom('credit_accounts').select('balance').where('id', '=', accountId).executeTakeFirstOrThrow()
  return row.balance
}
