// Members see their own share: on a team's account, the /credits page, the dashboard and the balance
// API list a plain member's own rows only, while owners and admins see every member's.
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { loadDashboard } from '~/features/account/dashboard.server'
import { createVerifiedUser, linkMailedTo } from '~/features/auth/testing.server'
import { creditBalance } from '~/features/account/balance.server'
import { loadCreditsPage } from '~/features/account/credits-page.server'
import { grant } from '~/features/credits/ledger.server'
import { BASE } from '../../../tests/support/requests'
import { chargeRun } from '../account/charge.server'
import { teamAccount } from './membership.server'
import { acceptInvite, createTeam, inviteMember } from './teams.server'

type Person = Awaited<ReturnType<typeof createVerifiedUser>>
const asTeam = (person: Person, teamId: string) =>
  new Request(`${BASE}/credits`, { headers: { authorization: `Token ${person.token}`, 'x-team': teamId } })

describe("a team's ledger as its members see it", () => {
  it('shows a member their own rows and an owner every row', async () => {
    const owner = await createVerifiedUser()
    const member = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Ledger ${Date.now()}`)
    await inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' })
    await acceptInvite(member.user.id, (await linkMailedTo(member.user.email)).pathname.split('/').pop()!)
    const { accountId } = (await teamAccount(team.id))!
    await grant({ accountId, amount: 10, kind: 'adjustment', description: 'Pilot' })
    const run = (person: Person, key: string, description: string) =>
      chargeRun({ accountId, amount: 1, toolSlug: 'remove-bg', idempotencyKey: key, description, userId: person.user.id }, getDb())
    expect((await run(owner, `o-${team.id}`, 'Owner run')).ok).toBe(true)
    expect((await run(member, `m-${team.id}`, 'Member run')).ok).toBe(true)

    const memberPage = await loadCreditsPage(asTeam(member, team.id))
    expect(memberPage.summary.balance).toBe(8)
    expect(memberPage.recent.map((r) => r.description)).toEqual(['Member run'])
    const ownerPage = await loadCreditsPage(asTeam(owner, team.id))
    expect(ownerPage.recent.map((r) => r.description)).toEqual(['Member run', 'Owner run', 'Pilot'])

    const memberDashboard = await loadDashboard(asTeam(member, team.id))
    expect(memberDashboard).toMatchObject({ totalTransactions: 1, recent: [{ description: 'Member run' }] })

    const ownersLatest = await run(owner, `o2-${team.id}`, 'Owner again')
    expect(ownersLatest.ok).toBe(true)
    const memberBalance = await creditBalance(asTeam(member, team.id))
    expect(memberBalance).toMatchObject({ kind: 'balance', credits: { balance: 7, latest_transaction: { description: 'Member run' } } })
  })
})
