// Reaching across accounts by id and climbing roles: another account's key, webhook, delivery or
// team invite named in a URL answers 404 (as an unknown id does) and changes nothing; a team's
// admin cannot make themselves owner and a member cannot change their own role or cap.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createSession } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { acceptInvite, createTeam, inviteMember } from '~/features/teams/teams.server'
import { createEndpoint } from '~/features/webhooks/endpoints.server'
import { loader as balance } from '~/routes/api.credits.balance'
import { action as revokeKey } from '~/routes/api.keys.$id'
import { action as patchMember } from '~/routes/api.teams.$id.members.$userId'
import { action as revokeInviteRoute } from '~/routes/api.teams.$id.invites.$inviteId'
import { action as deleteWebhook } from '~/routes/api.webhooks.$id'
import { action as redeliver } from '~/routes/api.webhooks.deliveries.$id.redeliver'
import { BASE, jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'

beforeAll(() => {
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
})
afterAll(() => {
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

async function signedIn() {
  const { user } = await createVerifiedUser()
  const { token } = await createSession(user.id)
  return { user, headers: { authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() } }
}

const call = (path: string, method: string, headers: Record<string, string>) => new Request(BASE + path, { method, headers })

describe('another account’s things, named by id', () => {
  it('revoking another user’s API key answers 404 and the key keeps working', async () => {
    const owner = await signedIn()
    const attacker = await signedIn()
    const made = await createApiKey(owner.user.id, { name: 'prod', environment: 'live' })
    if (!made.ok) throw new Error('no key')
    const refused = await readResult(await answerOf(revokeKey(routeArgs(call(`/api/keys/${made.key.id}/`, 'DELETE', attacker.headers), { id: made.key.id }))))
    expect(refused.status).toBe(404)
    const still = await readResult(await balance(routeArgs(new Request(`${BASE}/api/credits/balance/`, { headers: { authorization: `Bearer ${made.key.key}` } }))))
    expect(still.status).toBe(200)
    expect(still.body.source).toBe('user')
  })

  it('deleting another account’s webhook endpoint answers 404 and it stays; odd ids answer 404 too', async () => {
    const owner = await signedIn()
    const attacker = await signedIn()
    const created = await createEndpoint(await ensureUserAccount(owner.user.id), { url: 'http://127.0.0.1:9/hook', events: ['job.succeeded'] })
    expect(created.ok).toBe(true)
    const endpoint = await getDb().selectFrom('webhook_endpoints').select('id').where('account_id', '=', await ensureUserAccount(owner.user.id)).executeTakeFirstOrThrow()
    const refused = await readResult(await answerOf(deleteWebhook(routeArgs(call(`/api/webhooks/${endpoint.id}/`, 'DELETE', attacker.headers), { id: endpoint.id }))))
    expect(refused.status).toBe(404)
    expect(await getDb().selectFrom('webhook_endpoints').select('id').where('id', '=', endpoint.id).executeTakeFirst()).toBeDefined()
    for (const id of ['../../etc/passwd', "1' OR '1'='1", randomUUID()]) {
      const answer = await readResult(await answerOf(redeliver(routeArgs(call(`/api/webhooks/deliveries/${encodeURIComponent(id)}/redeliver/`, 'POST', attacker.headers), { id }))))
      expect(answer.status).toBe(404)
    }
  })

  it('another team’s invite, revoked through one’s own team, answers 404 and stays pending', async () => {
    const victim = await signedIn()
    const attacker = await signedIn()
    const victimTeam = await createTeam(victim.user.id, `Victim ${randomUUID().slice(0, 6)}`)
    const attackerTeam = await createTeam(attacker.user.id, `Attacker ${randomUUID().slice(0, 6)}`)
    const { inviteId } = await inviteMember(victim.user.id, victimTeam.id, { email: uniqueEmail('invited'), role: 'member' })
    const path = `/api/teams/${attackerTeam.id}/invites/${inviteId}/`
    const refused = await readResult(await answerOf(revokeInviteRoute(routeArgs(call(path, 'DELETE', attacker.headers), { id: attackerTeam.id, inviteId }))))
    expect(refused.status).toBe(404)
    const invite = await getDb().selectFrom('team_invites').selectAll().where('id', '=', inviteId).executeTakeFirstOrThrow()
    expect(invite.revoked_at).toBeNull()
  })
})

describe('climbing roles in a team', () => {
  async function teamOf() {
    const owner = await signedIn()
    const team = await createTeam(owner.user.id, `Roles ${randomUUID().slice(0, 6)}`)
    const join = async (role: 'admin' | 'member') => {
      const { user } = await createVerifiedUser({ email: uniqueEmail(role) })
      await inviteMember(owner.user.id, team.id, { email: user.email, role })
      await acceptInvite(user.id, (await linkMailedTo(user.email)).pathname.split('/').pop()!)
      const { token } = await createSession(user.id)
      return { user, headers: { authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() } }
    }
    return { owner, team, admin: await join('admin'), member: await join('member') }
  }

  const patch = (teamId: string, userId: string, body: unknown, headers: Record<string, string>) =>
    answerOf(patchMember(routeArgs(jsonRequest(`/api/teams/${teamId}/members/${userId}/`, body, { method: 'PATCH', headers }), { id: teamId, userId })))

  async function roleOf(teamId: string, userId: string) {
    return getDb().selectFrom('team_members').select(['role', 'monthly_cap']).where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirstOrThrow()
  }

  it('an admin cannot make themselves (or a member) owner, nor demote the owner', async () => {
    const { team, owner, admin, member } = await teamOf()
    expect((await readResult(await patch(team.id, admin.user.id, { role: 'owner' }, admin.headers))).status).toBe(403)
    expect((await readResult(await patch(team.id, member.user.id, { role: 'owner' }, admin.headers))).status).toBe(403)
    expect((await readResult(await patch(team.id, owner.user.id, { role: 'member' }, admin.headers))).status).toBe(403)
    expect((await roleOf(team.id, admin.user.id)).role).toBe('admin')
    expect((await roleOf(team.id, owner.user.id)).role).toBe('owner')
  })

  it('a member cannot raise their own role or lift their own cap', async () => {
    const { team, member } = await teamOf()
    const before = await roleOf(team.id, member.user.id)
    for (const body of [{ role: 'admin' }, { role: 'owner' }, { cap: null }, { cap: 1_000_000 }]) {
      expect((await readResult(await patch(team.id, member.user.id, body, member.headers))).status).toBe(403)
    }
    expect(await roleOf(team.id, member.user.id)).toEqual(before)
  })
})
