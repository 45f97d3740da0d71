// Working as a team from the start and knowing the cap before a run: the invite page's "Use the team's
// credits now" (accept and switch in one step, nothing switched when the acceptance is refused), and
// the viewer's cap headroom that the header and the tool pages show.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo } from '~/features/auth/testing.server'
import { grant } from '~/features/credits/ledger.server'
import { loadViewer } from '~/features/account/viewer.server'
import { chargeRun } from '~/features/account/charge.server'
import { teamAccount } from '~/features/teams/membership.server'
import { changeMember, createTeam, inviteMember } from '~/features/teams/teams.server'
import { TEAM_NOTICES, WORK_AS_TEAM } from '~/features/teams/ui/forms'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../tests/support/requests'
import { loader as teamLoader } from './teams.$id'
import { action as acceptAction } from './teams.invites.$token'

async function signedIn() {
  const made = await createVerifiedUser()
  const cookie = (await sessionCookieHeader(made.token)).split(';')[0]
  return { ...made, cookie }
}
type Person = Awaited<ReturnType<typeof signedIn>>

async function invitedTo(owner: Person, teamId: string, member: Person) {
  await inviteMember(owner.user.id, teamId, { email: member.user.email, role: 'member' })
  return (await linkMailedTo(member.user.email)).pathname.split('/').pop()!
}

const viewerOf = async (person: Person) => (await loadViewer(new Request(`${BASE}/`, { headers: { cookie: person.cookie } }))).viewer

async function accept(person: Person, token: string, fields: Record<string, string>) {
  return readResult(await acceptAction(routeArgs(formRequest(`/teams/invites/${token}`, fields, { headers: { cookie: person.cookie } }), { token })))
}

describe('accepting an invite with “Use the team’s credits now”', () => {
  it('joins and works as the team in one step, and says so on the team page', async () => {
    const owner = await signedIn()
    const team = await createTeam(owner.user.id, `Now ${randomUUID().slice(0, 6)}`)
    await grant({ accountId: (await teamAccount(team.id))!.accountId, amount: 30, kind: 'adjustment', description: 'Budget' })
    const member = await signedIn()
    const token = await invitedTo(owner, team.id, member)

    const res = await accept(member, token, { then: WORK_AS_TEAM })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/teams/${team.id}`)
    const page = await readResult(
      await teamLoader(routeArgs(new Request(`${BASE}/teams/${team.id}`, { headers: { cookie: `${member.cookie}; ${cookieFrom(res.headers)}` } }), { id: team.id })),
    )
    expect(page.body.notice).toBe(TEAM_NOTICES['joined-working'])
    const viewer = await viewerOf(member)
    expect(viewer.workingTeam).toEqual({ id: team.id, name: team.name, cap: null })
    expect(viewer.credits).toEqual({ source: 'team', balance: 30 })
  })

  it('just joins with “Accept the invite”, and switches nothing when the acceptance is refused', async () => {
    const owner = await signedIn()
    const team = await createTeam(owner.user.id, `Later ${randomUUID().slice(0, 6)}`)
    const member = await signedIn()
    const token = await invitedTo(owner, team.id, member)
    // Someone else signed in: refused (403), and their session is not switched.
    const other = await signedIn()
    expect((await accept(other, token, { then: WORK_AS_TEAM })).status).toBe(403)
    expect((await viewerOf(other)).workingTeam).toBeNull()
    // A value that is not the button's: refused as a bad form.
    expect((await accept(member, token, { then: 'elsewhere' })).status).toBe(400)

    const res = await accept(member, token, {})
    expect(res.status).toBe(303)
    expect((await viewerOf(member)).workingTeam).toBeNull()
    expect((await viewerOf(member)).teams.map((t) => t.id)).toEqual([team.id])
  })
})

describe('the cap headroom a page shows while working as a team', () => {
  it('is the member’s cap less this month’s spend; null without a cap', async () => {
    const owner = await signedIn()
    const team = await createTeam(owner.user.id, `Capped ${randomUUID().slice(0, 6)}`)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 30, kind: 'adjustment', description: 'Budget' })
    const member = await signedIn()
    const token = await invitedTo(owner, team.id, member)
    await accept(member, token, { then: WORK_AS_TEAM })
    expect((await viewerOf(member)).workingTeam?.cap).toBeNull()

    await changeMember(owner.user.id, team.id, member.user.id, { cap: 3 })
    const charged = await chargeRun(
      { accountId: account.accountId, amount: 1, toolSlug: 'remove-bg', idempotencyKey: `test:${randomUUID()}`, description: 'Background Remover', userId: member.user.id },
      getDb(),
    )
    expect(charged.ok).toBe(true)
    expect((await viewerOf(member)).workingTeam?.cap).toEqual({ limit: 3, used: 1, left: 2 })
    await changeMember(owner.user.id, team.id, member.user.id, { cap: 1 })
    expect((await viewerOf(member)).workingTeam?.cap).toEqual({ limit: 1, used: 1, left: 0 })
    // On the own balance no team cap applies.
    expect((await viewerOf(owner)).workingTeam).toBeNull()
  })
})
