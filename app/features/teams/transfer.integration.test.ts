// Moving one's own credits into a team: both entries and the audit row in one transaction (a failure
// at the last step leaves both balances and the ledger as they were), the daily floor stays with the
// user, and concurrent transfers by one user cannot overdraw.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { ensureUserAccount, getBalance, grant } from '~/features/credits/ledger.server'
import { teamAccount } from './membership.server'
import { TEAM_NOT_FOUND } from './messages'
import { acceptInvite, createTeam, inviteMember, TeamError } from './teams.server'
import { TRANSFER_IN_DESCRIPTION, transferOutDescription, transferTooLarge } from './transfer'
import { moveCreditsToTeam, transferAllowance } from './transfer.server'

const FLOOR = 10 // USER_DAILY_FLOOR's default, which the tests run with

async function userWith(balance: number) {
  const user = await createVerifiedUser({ email: uniqueEmail('mover') })
  const accountId = await ensureUserAccount(user.user.id)
  if (balance > 0) await grant({ accountId, amount: balance, kind: 'adjustment', description: 'Test credits' })
  return { ...user, accountId }
}

async function teamOf(owner: { user: { id: string } }) {
  const team = await createTeam(owner.user.id, `Movers ${randomUUID().slice(0, 6)}`)
  const account = await teamAccount(team.id)
  return { ...team, accountId: account!.accountId }
}

async function join(teamId: string, ownerId: string, member: { user: { id: string; email: string } }) {
  await inviteMember(ownerId, teamId, { email: member.user.email, role: 'member' })
  const token = (await linkMailedTo(member.user.email)).pathname.split('/').pop()!
  await acceptInvite(member.user.id, token)
}

async function rows(accountId: string) {
  return getDb().selectFrom('credit_transactions').selectAll().where('account_id', '=', accountId).orderBy('id').execute()
}

async function ledgerSum(accountId: string): Promise<number> {
  const row = await getDb()
    .selectFrom('credit_transactions')
    .select(sql<number>`coalesce(sum(delta), 0)::int`.as('sum'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return row.sum
}

async function transferAudits(teamId: string) {
  return getDb().selectFrom('audit_log').selectAll().where('action', '=', 'team.credits.transfer').where('target_id', '=', teamId).execute()
}

async function refusal(promise: Promise<unknown>): Promise<TeamError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TeamError)
  return error as TeamError
}

describe('moving credits into a team', () => {
  it('takes them off the member, adds them to the team, with two ledger rows and one audit row', async () => {
    const owner = await userWith(0)
    const team = await teamOf(owner)
    const member = await userWith(60)
    await join(team.id, owner.user.id, member)

    const done = await moveCreditsToTeam(member.user.id, team.id, 25)
    expect(done).toMatchObject({ teamId: team.id, teamName: team.name, amount: 25, balance: 35, teamBalance: 25 })
    expect(await getBalance(member.accountId)).toBe(35)
    expect(await getBalance(team.accountId)).toBe(25)

    const out = (await rows(member.accountId)).at(-1)!
    const into = (await rows(team.accountId)).at(-1)!
    expect(out).toMatchObject({ delta: -25, kind: 'adjustment', description: transferOutDescription(team.name), balance_after: 35, user_id: null })
    expect(into).toMatchObject({ delta: 25, kind: 'adjustment', description: TRANSFER_IN_DESCRIPTION, balance_after: 25, user_id: member.user.id })
    expect(out.idempotency_key).toBe(`transfer:${done.id}`)
    expect(into.idempotency_key).toBe(`transfer:${done.id}`)
    // Balances stay the sums of their ledgers, and a transfer is not spending (caps, lifetime spent).
    expect(await ledgerSum(member.accountId)).toBe(35)
    expect(await ledgerSum(team.accountId)).toBe(25)
    const accounts = await getDb().selectFrom('credit_accounts').select(['id', 'lifetime_spent']).where('id', 'in', [member.accountId, team.accountId]).execute()
    expect(accounts.map((a) => a.lifetime_spent)).toEqual([0, 0])

    const audits = await transferAudits(team.id)
    expect(audits).toHaveLength(1)
    expect(audits[0]).toMatchObject({ actor: member.user.id, actor_email: member.user.email, target_type: 'team' })
    expect(audits[0].details).toMatchObject({ amount: 25, transferId: done.id, fromTransactionId: out.id, toTransactionId: into.id, balance: 25 })
  })

  it('lets owners move credits too, and says what may move', async () => {
    const owner = await userWith(15)
    const team = await teamOf(owner)
    expect(await transferAllowance(owner.user.id)).toEqual({ balance: 15, movable: 5, floor: FLOOR })
    await moveCreditsToTeam(owner.user.id, team.id, 5)
    expect(await transferAllowance(owner.user.id)).toEqual({ balance: 10, movable: 0, floor: FLOOR })
    expect(await getBalance(team.accountId)).toBe(5)
  })

  it('refuses more than the balance above the daily floor, and changes nothing', async () => {
    const owner = await userWith(30)
    const team = await teamOf(owner)
    const before = await rows(owner.accountId)
    const tooMuch = await refusal(moveCreditsToTeam(owner.user.id, team.id, 21))
    expect(tooMuch.status).toBe(402)
    expect(tooMuch.message).toBe(transferTooLarge(21, 30, FLOOR))
    expect(tooMuch.message).toBe(
      'You can move at most 20 credits: your balance is 30 credits (the first 10 credits stay with you: they are your daily allowance). You asked to move 21 credits.',
    )
    expect(await rows(owner.accountId)).toEqual(before)
    expect(await rows(team.accountId)).toEqual([])
    expect(await transferAudits(team.id)).toEqual([])
  })

  it('refuses amounts that are not positive whole numbers, and teams the user is not in', async () => {
    const owner = await userWith(50)
    const team = await teamOf(owner)
    for (const amount of [0, -5, 1.5, Number.NaN, 2_000_000]) {
      expect((await refusal(moveCreditsToTeam(owner.user.id, team.id, amount))).status).toBe(400)
    }
    const stranger = await userWith(50)
    const notIn = await refusal(moveCreditsToTeam(stranger.user.id, team.id, 5))
    expect(notIn.status).toBe(404)
    expect(notIn.message).toBe(TEAM_NOT_FOUND)
    expect((await refusal(moveCreditsToTeam(owner.user.id, 'not-a-team', 5))).status).toBe(404)
    expect(await getBalance(stranger.accountId)).toBe(50)
    expect(await getBalance(team.accountId)).toBe(0)
  })

  it('is atomic: a failure at its last write (the audit row) leaves both balances and the ledger unchanged', async () => {
    const owner = await userWith(40)
    const team = await teamOf(owner)
    const db = getDb()
    // A real failure inside the transaction, after both ledger entries: the audit insert is refused.
    const fn = `fail_transfer_${randomUUID().replace(/-/g, '')}`
    await sql
      .raw(
        `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           IF NEW.target_id = '${team.id}' THEN RAISE EXCEPTION 'audit refused for the test'; END IF;
           RETURN NEW; END $$`,
      )
      .execute(db)
    await sql.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${fn}()`).execute(db)
    const before = { own: await rows(owner.accountId), team: await rows(team.accountId) }
    try {
      await expect(moveCreditsToTeam(owner.user.id, team.id, 12)).rejects.toThrow(/audit refused for the test/)
    } finally {
      await sql.raw(`DROP TRIGGER ${fn} ON audit_log`).execute(db)
      await sql.raw(`DROP FUNCTION ${fn}()`).execute(db)
    }
    expect(await getBalance(owner.accountId)).toBe(40)
    expect(await getBalance(team.accountId)).toBe(0)
    expect(await rows(owner.accountId)).toEqual(before.own)
    expect(await rows(team.accountId)).toEqual(before.team)
    // And it works once the failure is gone.
    await moveCreditsToTeam(owner.user.id, team.id, 12)
    expect(await getBalance(team.accountId)).toBe(12)
  })

  it('cannot overdraw under concurrent transfers by one user', async () => {
    const owner = await userWith(0)
    const team = await teamOf(owner)
    const member = await userWith(40) // 30 may move
    await join(team.id, owner.user.id, member)
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => moveCreditsToTeam(member.user.id, team.id, 5)))
    const done = results.filter((r) => r.status === 'fulfilled')
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(done).toHaveLength(6)
    expect(refused).toHaveLength(4)
    for (const r of refused) expect((r.reason as TeamError).status).toBe(402)
    expect(await getBalance(member.accountId)).toBe(FLOOR)
    expect(await getBalance(team.accountId)).toBe(30)
    expect(await ledgerSum(member.accountId)).toBe(FLOOR)
    expect(await ledgerSum(team.accountId)).toBe(30)
    expect(await transferAudits(team.id)).toHaveLength(6)
  })
})
