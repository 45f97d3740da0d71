// The team rules at the domain level: roles, seats, invites (expiry, reuse, wrong address), the last
// owner, caps (also 50 concurrent charges), the shared ledger's invariants, and working as a team.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { resolveCaller } from '~/features/account/caller.server'
import { grant, refund } from '~/features/credits/ledger.server'
import { loadViewer } from '~/features/account/viewer.server'
import { BASE } from '../../../tests/support/requests'
import { chargeRun } from '../account/charge.server'
import { memberAccount, teamAccount } from './membership.server'
import { capMessage, LAST_OWNER, memberSeatsFull, seatsFull } from './messages'
import {
  acceptanceFits,
  acceptInvite,
  changeMember,
  createTeam,
  describeInvite,
  getTeamView,
  inviteMember,
  leaveTeam,
  listTeamsForUser,
  newInviteFits,
  removeMember,
  revokeInvite,
  setWorkingTeam,
  TeamError,
  teamActivity,
} from './teams.server'

async function teamWith(ownerEmail?: string) {
  const owner = await createVerifiedUser({ email: ownerEmail ?? uniqueEmail('owner'), first_name: 'Olive' })
  const team = await createTeam(owner.user.id, `Acme ${randomUUID().slice(0, 6)}`)
  return { owner, team }
}

/** Invites and accepts: a new member of the team with the given role. */
async function addMember(teamId: string, actorId: string, role: 'owner' | 'admin' | 'member' = 'member') {
  const member = await createVerifiedUser({ email: uniqueEmail(role) })
  await inviteMember(actorId, teamId, { email: member.user.email, role })
  const token = (await linkMailedTo(member.user.email)).pathname.split('/').pop()!
  await acceptInvite(member.user.id, token)
  return member
}

async function expectTeamError(promise: Promise<unknown>, status: number, message?: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TeamError)
  expect((error as TeamError).status).toBe(status)
  if (message) expect((error as TeamError).message).toBe(message)
}

async function ledgerSum(accountId: string): Promise<number> {
  const row = await getDb()
    .selectFrom('credit_transactions')
    .select(sql<number>`coalesce(sum(delta), 0)::int`.as('sum'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return row.sum
}

function runCharge(accountId: string, userId: string, amount = 1) {
  return chargeRun({ accountId, amount, toolSlug: 'remove-bg', idempotencyKey: `test:${randomUUID()}`, description: 'Background Remover', userId }, getDb())
}

describe('creating and looking at a team', () => {
  it('makes the creator its owner, with a zero balance and the default seat limit', async () => {
    const { owner, team } = await teamWith()
    expect(await listTeamsForUser(owner.user.id)).toEqual([{ id: team.id, name: team.name, role: 'owner' }])
    const view = await getTeamView(team.id, owner.user.id)
    expect(view).toMatchObject({ id: team.id, balance: 0, seats: { used: 1, limit: 5 }, viewerRole: 'owner', spentThisMonth: 0, invites: [] })
    expect(view.members).toEqual([{ userId: owner.user.id, email: owner.user.email, name: 'Olive', role: 'owner', spentThisMonth: 0, cap: null }])
  })

  it('refuses an empty or too long name', async () => {
    const owner = await createVerifiedUser()
    await expectTeamError(createTeam(owner.user.id, '   '), 400)
    await expectTeamError(createTeam(owner.user.id, 'x'.repeat(61)), 400)
  })

  it('answers 404 to someone outside the team, and for ids that name nothing', async () => {
    const { team } = await teamWith()
    const stranger = await createVerifiedUser()
    await expectTeamError(getTeamView(team.id, stranger.user.id), 404)
    await expectTeamError(getTeamView(randomUUID(), stranger.user.id), 404)
    await expectTeamError(getTeamView('not-a-uuid', stranger.user.id), 404)
    await expectTeamError(teamActivity(team.id, stranger.user.id), 404)
  })
})

describe('invites', () => {
  it('mails a single-use link that the invited address accepts once', async () => {
    const { owner, team } = await teamWith()
    const invited = await createVerifiedUser({ email: uniqueEmail('invited') })
    const { expiresAt } = await inviteMember(owner.user.id, team.id, { email: invited.user.email.toUpperCase(), role: 'member' })
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000)
    const link = await linkMailedTo(invited.user.email)
    expect(link.pathname).toMatch(/^\/teams\/invites\/[\w-]{40,}$/)
    const token = link.pathname.split('/').pop()!
    const stored = await getDb().selectFrom('team_invites').select('token_hash').where('team_id', '=', team.id).executeTakeFirstOrThrow()
    expect(stored.token_hash).not.toContain(token)

    expect(await describeInvite(token)).toEqual({ teamName: team.name, email: invited.user.email.toLowerCase(), role: 'member', status: 'pending' })
    expect(await acceptInvite(invited.user.id, token)).toEqual({ teamId: team.id })
    expect((await describeInvite(token))?.status).toBe('used')
    await expectTeamError(acceptInvite(invited.user.id, token), 410)
    expect(await listTeamsForUser(invited.user.id)).toEqual([{ id: team.id, name: team.name, role: 'member' }])
  })

  it('refuses another signed-in address (403), an unknown token (404), and an expired or revoked invite (410)', async () => {
    const { owner, team } = await teamWith()
    const invitedEmail = uniqueEmail('invited')
    await inviteMember(owner.user.id, team.id, { email: invitedEmail, role: 'member' })
    const token = (await linkMailedTo(invitedEmail)).pathname.split('/').pop()!
    const other = await createVerifiedUser()
    await expectTeamError(acceptInvite(other.user.id, token), 403)
    await expectTeamError(acceptInvite(other.user.id, 'no-such-token'), 404)

    const later = new Date(Date.now() + 7 * 86_400_000 + 1000)
    expect((await describeInvite(token, getDb(), later))?.status).toBe('expired')
    const invited = await createVerifiedUser({ email: invitedEmail })
    await expectTeamError(acceptInvite(invited.user.id, token, getDb(), later), 410)

    const view = await getTeamView(team.id, owner.user.id)
    await revokeInvite(owner.user.id, team.id, view.invites[0].id)
    await expectTeamError(acceptInvite(invited.user.id, token), 410)
  })

  it('lets members invite nobody, and only owners invite owners', async () => {
    const { owner, team } = await teamWith()
    const admin = await addMember(team.id, owner.user.id, 'admin')
    const member = await addMember(team.id, owner.user.id, 'member')
    await expectTeamError(inviteMember(member.user.id, team.id, { email: uniqueEmail(), role: 'member' }), 403)
    await expectTeamError(inviteMember(admin.user.id, team.id, { email: uniqueEmail(), role: 'owner' }), 403)
    await inviteMember(admin.user.id, team.id, { email: uniqueEmail(), role: 'admin' })
    await expectTeamError(inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' }), 409)
  })

  it('counts members and pending invites against the seat limit', async () => {
    const { owner, team } = await teamWith()
    await getDb().updateTable('teams').set({ seat_limit: 3 }).where('id', '=', team.id).execute()
    await addMember(team.id, owner.user.id)
    const pending = uniqueEmail('pending')
    await inviteMember(owner.user.id, team.id, { email: pending, role: 'member' })
    await expectTeamError(inviteMember(owner.user.id, team.id, { email: uniqueEmail(), role: 'member' }), 409)
    // Re-sending to the same address replaces its invite instead of taking a second seat.
    await inviteMember(owner.user.id, team.id, { email: pending, role: 'member' })
    expect((await getTeamView(team.id, owner.user.id)).seats).toEqual({ used: 3, limit: 3 })
  })
})

describe('a seat limit lowered below the seats in use blocks only what it must', () => {
  /** An invite sent to a new user, who can accept it with the token. */
  async function invited(teamId: string, actorId: string) {
    const person = await createVerifiedUser({ email: uniqueEmail('invited') })
    await inviteMember(actorId, teamId, { email: person.user.email, role: 'member' })
    const token = (await linkMailedTo(person.user.email)).pathname.split('/').pop()!
    return { person, token }
  }

  it('pending invites are still accepted while a member seat is free; a new invite is refused; past the members limit acceptance is refused', async () => {
    const { owner, team } = await teamWith()
    // 1 member and 4 pending invites: 5 seats of 5.
    const pending = [] as Array<Awaited<ReturnType<typeof invited>>>
    for (let i = 0; i < 4; i++) pending.push(await invited(team.id, owner.user.id))
    // The operator lowers the limit to 3: 5 seats in use, 1 member.
    await getDb().updateTable('teams').set({ seat_limit: 3 }).where('id', '=', team.id).execute()

    // A new invite would take a sixth seat: refused with the seats' message.
    await expectTeamError(inviteMember(owner.user.id, team.id, { email: uniqueEmail(), role: 'member' }), 409, seatsFull(3))
    // The invites hold their seats: two of them are accepted (members 1 → 3).
    await acceptInvite(pending[0]!.person.user.id, pending[0]!.token)
    await acceptInvite(pending[1]!.person.user.id, pending[1]!.token)
    expect((await getTeamView(team.id, owner.user.id)).seats).toEqual({ used: 5, limit: 3 })
    // Every member seat is taken now: the third is refused, saying why, and stays pending.
    await expectTeamError(acceptInvite(pending[2]!.person.user.id, pending[2]!.token), 409, memberSeatsFull(3))
    expect(await describeInvite(pending[2]!.token)).toMatchObject({ status: 'pending' })
    // A member leaves: the pending invite can be accepted again.
    await leaveTeam(pending[0]!.person.user.id, team.id)
    await acceptInvite(pending[2]!.person.user.id, pending[2]!.token)
    expect((await listTeamsForUser(pending[2]!.person.user.id)).map((t) => t.id)).toEqual([team.id])
  })

  it('a new invite fits again once members and pending invites are under the lowered limit', async () => {
    const { owner, team } = await teamWith()
    const first = await invited(team.id, owner.user.id)
    const second = await invited(team.id, owner.user.id)
    await getDb().updateTable('teams').set({ seat_limit: 2 }).where('id', '=', team.id).execute()
    await expectTeamError(inviteMember(owner.user.id, team.id, { email: uniqueEmail(), role: 'member' }), 409)
    await revokeInvite(owner.user.id, team.id, (await getTeamView(team.id, owner.user.id)).invites.find((i) => i.email === second.person.user.email)!.id)
    // 1 member + 1 pending = 2 of 2: still no room for a third seat.
    await expectTeamError(inviteMember(owner.user.id, team.id, { email: uniqueEmail(), role: 'member' }), 409)
    await revokeInvite(owner.user.id, team.id, (await getTeamView(team.id, owner.user.id)).invites.find((i) => i.email === first.person.user.email)!.id)
    await inviteMember(owner.user.id, team.id, { email: uniqueEmail(), role: 'member' })
    expect((await getTeamView(team.id, owner.user.id)).seats).toEqual({ used: 2, limit: 2 })
  })
})

describe('the seat rule', () => {
  it('a new invite needs members + pending < limit; accepting needs members < limit', () => {
    expect(newInviteFits({ members: 1, pending: 1 }, 3)).toBe(true)
    expect(newInviteFits({ members: 1, pending: 2 }, 3)).toBe(false)
    expect(newInviteFits({ members: 1, pending: 4 }, 3)).toBe(false)
    expect(acceptanceFits({ members: 2 }, 3)).toBe(true)
    expect(acceptanceFits({ members: 3 }, 3)).toBe(false)
  })
})

describe('roles and leaving', () => {
  it('keeps the last owner: they cannot leave, be demoted or be removed', async () => {
    const { owner, team } = await teamWith()
    const admin = await addMember(team.id, owner.user.id, 'admin')
    await expectTeamError(leaveTeam(owner.user.id, team.id), 409, LAST_OWNER)
    await expectTeamError(changeMember(owner.user.id, team.id, owner.user.id, { role: 'admin' }), 409, LAST_OWNER)
    await expectTeamError(removeMember(admin.user.id, team.id, owner.user.id), 403)
    await expectTeamError(changeMember(admin.user.id, team.id, admin.user.id, { role: 'owner' }), 403)

    await changeMember(owner.user.id, team.id, admin.user.id, { role: 'owner' })
    await leaveTeam(owner.user.id, team.id)
    expect(await listTeamsForUser(owner.user.id)).toEqual([])
    await expectTeamError(leaveTeam(admin.user.id, team.id), 409)
  })

  it('lets admins change members but not owners, and members change nothing', async () => {
    const { owner, team } = await teamWith()
    const admin = await addMember(team.id, owner.user.id, 'admin')
    const member = await addMember(team.id, owner.user.id)
    await changeMember(admin.user.id, team.id, member.user.id, { cap: 20 })
    await expectTeamError(changeMember(admin.user.id, team.id, owner.user.id, { cap: 5 }), 403)
    await expectTeamError(changeMember(member.user.id, team.id, admin.user.id, { role: 'member' }), 403)
    await expectTeamError(removeMember(member.user.id, team.id, admin.user.id), 403)
    await expectTeamError(changeMember(owner.user.id, team.id, member.user.id, { cap: -1 }), 400)
    await expectTeamError(changeMember(owner.user.id, team.id, randomUUID(), { cap: 1 }), 404)
    const view = await getTeamView(team.id, member.user.id)
    expect(view.members).toEqual([expect.objectContaining({ userId: member.user.id, cap: 20, role: 'member' })])
    expect(view.invites).toEqual([])
  })
})

describe('the team account in the shared ledger', () => {
  it('is charged for the member, refunded once, and its balance always equals the sum of its entries', async () => {
    const { owner, team } = await teamWith()
    const member = await addMember(team.id, owner.user.id)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 10, kind: 'adjustment', description: 'Pilot' })
    const charged = await runCharge(account.accountId, member.user.id, 3)
    if (!charged.ok) throw new Error(charged.message)
    const row = await getDb().selectFrom('credit_transactions').select(['user_id', 'delta']).where('id', '=', charged.transactionId).executeTakeFirstOrThrow()
    expect(row).toEqual({ user_id: member.user.id, delta: -3 })
    expect((await refund(charged.transactionId)).refunded).toBe(true)
    expect((await refund(charged.transactionId)).refunded).toBe(false)
    await runCharge(account.accountId, member.user.id, 2)

    const view = await getTeamView(team.id, owner.user.id)
    expect(view.balance).toBe(8)
    expect(view.balance).toBe(await ledgerSum(account.accountId))
    expect(view.members.find((m) => m.userId === member.user.id)?.spentThisMonth).toBe(2)
    const activity = await teamActivity(team.id, owner.user.id)
    expect(activity.map((a) => [a.email, a.credits])).toEqual([
      [member.user.email, -2],
      [member.user.email, 3],
      [member.user.email, -3],
      ['', 10],
    ])
    const own = await teamActivity(team.id, member.user.id)
    expect(own.map((a) => a.credits)).toEqual([-2, 3, -3])
  })

  it('never overspends under 50 concurrent runs by 5 members, and charges each accepted run once', async () => {
    const { owner, team } = await teamWith()
    const members = [owner, ...(await Promise.all([1, 2, 3, 4].map(() => addMember(team.id, owner.user.id))))]
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 17, kind: 'adjustment', description: 'Small budget' })
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => runCharge(account.accountId, members[i % 5].user.id, 1)))
    const accepted = results.filter((r) => r.ok)
    expect(accepted).toHaveLength(17)
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.status === 402)).toBe(true)
    const balance = (await teamAccount(team.id))!.balance
    expect(balance).toBe(0)
    expect(await ledgerSum(account.accountId)).toBe(balance)
    const charges = await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', account.accountId).where('kind', '=', 'consume').execute()
    expect(charges).toHaveLength(17)
  })

  it('refuses a run past the monthly cap with a 402 that names it, also under 50 concurrent runs', async () => {
    const { owner, team } = await teamWith()
    const member = await addMember(team.id, owner.user.id)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 500, kind: 'adjustment', description: 'Budget' })
    await changeMember(owner.user.id, team.id, member.user.id, { cap: 20 })
    for (let i = 0; i < 6; i++) await runCharge(account.accountId, member.user.id, 3)
    const refused = await runCharge(account.accountId, member.user.id, 3)
    expect(refused).toMatchObject({ ok: false, status: 402, reason: 'cap', message: capMessage(20, team.name, 18) })
    expect(refused.ok ? null : refused.message).toBe(`This run would pass your monthly cap of 20 credits on team ${team.name} (18 used this month). To use your own credits instead, switch to your own balance.`)
    expect((await runCharge(account.accountId, member.user.id, 2)).ok).toBe(true)

    const second = await addMember(team.id, owner.user.id)
    await changeMember(owner.user.id, team.id, second.user.id, { cap: 10 })
    const results = await Promise.all(Array.from({ length: 50 }, () => runCharge(account.accountId, second.user.id, 1)))
    expect(results.filter((r) => r.ok)).toHaveLength(10)
    expect((await getTeamView(team.id, owner.user.id)).members.find((m) => m.userId === second.user.id)?.spentThisMonth).toBe(10)
    expect(await ledgerSum(account.accountId)).toBe((await teamAccount(team.id))!.balance)
  })

  it('refuses a removed member’s charge (403) and keeps nothing of the team for them', async () => {
    const { owner, team } = await teamWith()
    const member = await addMember(team.id, owner.user.id)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 5, kind: 'adjustment', description: 'Budget' })
    await removeMember(owner.user.id, team.id, member.user.id)
    expect(await runCharge(account.accountId, member.user.id)).toMatchObject({ ok: false, status: 403 })
    expect(await memberAccount(team.id, member.user.id)).toBeNull()
    await expectTeamError(getTeamView(team.id, member.user.id), 404)
  })
})

describe('working as the team', () => {
  function pageRequest(cookie: string, headers: Record<string, string> = {}) {
    return new Request(`${BASE}/`, { headers: { cookie, ...headers } })
  }

  it('makes a browser session pay with the team, until the member is removed', async () => {
    const { owner, team } = await teamWith()
    const member = await addMember(team.id, owner.user.id)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 40, kind: 'adjustment', description: 'Budget' })
    const cookie = (await sessionCookieHeader(member.token)).split(';')[0]

    await expectTeamError(setWorkingTeam(member.sessionId, member.user.id, randomUUID()), 404)
    await setWorkingTeam(member.sessionId, member.user.id, team.id)
    const resolved = await resolveCaller(pageRequest(cookie))
    if (resolved.kind !== 'caller') throw new Error(resolved.kind)
    expect(resolved.caller).toMatchObject({ accountId: account.accountId, teamId: team.id, userId: member.user.id })
    expect(resolved.balance).toBe(40)
    const { viewer } = await loadViewer(pageRequest(cookie))
    expect(viewer.credits).toEqual({ source: 'team', balance: 40 })
    expect(viewer.workingTeam).toEqual({ id: team.id, name: team.name, cap: null })
    expect(viewer.teams).toEqual([{ id: team.id, name: team.name, role: 'member' }])

    await removeMember(owner.user.id, team.id, member.user.id)
    const after = await resolveCaller(pageRequest(cookie))
    if (after.kind !== 'caller') throw new Error(after.kind)
    expect(after.caller.teamId).toBeNull()
    expect(after.caller.accountId).not.toBe(account.accountId)
    expect((await loadViewer(pageRequest(cookie))).viewer).toMatchObject({ teams: [], workingTeam: null })
  })

  it('takes X-Team from members only (403 otherwise, 401 without a sign-in)', async () => {
    const { owner, team } = await teamWith()
    const stranger = await createVerifiedUser()
    const asOwner = await resolveCaller(new Request(`${BASE}/api/credits/balance/`, { headers: { authorization: `Token ${owner.token}`, 'x-team': team.id } }))
    expect(asOwner.kind === 'caller' && asOwner.caller.teamId).toBe(team.id)
    const refused = await resolveCaller(new Request(`${BASE}/api/credits/balance/`, { headers: { authorization: `Token ${stranger.token}`, 'x-team': team.id } }))
    expect(refused).toMatchObject({ kind: 'team-refused', status: 403 })
    const anonymous = await resolveCaller(new Request(`${BASE}/api/credits/balance/`, { headers: { 'x-team': team.id } }))
    expect(anonymous).toMatchObject({ kind: 'team-refused', status: 401 })
  })
})
