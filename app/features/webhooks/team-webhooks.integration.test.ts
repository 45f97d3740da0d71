// A team's webhook endpoints: its owners and admins manage them with X-Team (members are refused,
// outsiders see nothing), a team key manages its own team's, and a run paid by the team, whichever
// member sent it, queues its event for the team's endpoints (not for the member's own).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress } from '~/features/auth/testing.server'
import { grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { teamAccount } from '~/features/teams/membership.server'
import { listAudit } from '~/features/audit/audit.server'
import { acceptInvite, createTeam, inviteMember } from '~/features/teams/teams.server'
import { fileOf, fixture } from '../../../tests/support/tools'
import { BASE, formRequest, jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'
import { action as createKey } from '../../routes/api.keys'
import { action as removeBg } from '../../routes/api.remove-bg'
import { action as deleteWebhook } from '../../routes/api.webhooks.$id'
import { action as createWebhook, loader as listWebhooks } from '../../routes/api.webhooks'

type Person = Awaited<ReturnType<typeof createVerifiedUser>>
const HOOK_URL = 'http://127.0.0.1:9/team-hook'

beforeAll(() => {
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
})

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

const headers = (credential: string, extra: Record<string, string> = {}) => ({ authorization: credential, 'x-facet-client-ip': uniqueAddress(), ...extra })
const asTeam = (person: Person, teamId: string) => headers(`Token ${person.token}`, { 'x-team': teamId })

const register = (h: Record<string, string>) =>
  answerOf(createWebhook(routeArgs(jsonRequest('/api/webhooks/', { url: HOOK_URL, events: ['job.succeeded'] }, { headers: h })))).then(readResult)
const list = (h: Record<string, string>) => answerOf(listWebhooks(routeArgs(new Request(`${BASE}/api/webhooks/`, { headers: h })))).then(readResult)

async function teamWithMember() {
  const owner = await createVerifiedUser()
  const member = await createVerifiedUser()
  const team = await createTeam(owner.user.id, `Hooks ${Date.now()}`)
  await inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' })
  await acceptInvite(member.user.id, (await linkMailedTo(member.user.email)).pathname.split('/').pop()!)
  const account = (await teamAccount(team.id))!
  await grant({ accountId: account.accountId, amount: 5, kind: 'adjustment', description: 'Pilot' })
  return { owner, member, teamId: team.id, accountId: account.accountId }
}

describe("a team's webhook endpoints", () => {
  it('are managed by owners and admins with X-Team, refused to members and hidden from outsiders', async () => {
    const { owner, member, teamId } = await teamWithMember()
    const made = await register(asTeam(owner, teamId))
    expect(made).toMatchObject({ status: 201, body: { url: HOOK_URL, secret: expect.stringMatching(/^whsec_/) } })

    expect((await list(asTeam(owner, teamId))).body.results.map((e: { id: string }) => e.id)).toEqual([made.body.id])
    // The owner's own endpoints are another list.
    expect((await list(headers(`Token ${owner.token}`))).body.results).toEqual([])
    expect((await register(asTeam(member, teamId))).status).toBe(403)
    expect((await list(asTeam(member, teamId))).status).toBe(403)
    const outsider = await createVerifiedUser()
    expect((await list(asTeam(outsider, teamId))).status).toBe(404)
    // Without X-Team, another account's endpoint id is unknown.
    const removal = (h: Record<string, string>) =>
      answerOf(deleteWebhook(routeArgs(new Request(`${BASE}/api/webhooks/${made.body.id}/`, { method: 'DELETE', headers: h }), { id: made.body.id }))).then(readResult)
    expect((await removal(headers(`Token ${owner.token}`))).status).toBe(404)
    expect((await removal(asTeam(owner, teamId))).status).toBe(204)

    // Both are team-admin actions in the audit log, with what was added and what was removed (decision 162).
    const audited = (await listAudit({ target: teamId })).rows.filter((e) => e.action.startsWith('team.webhook.'))
    expect(audited.map((e) => [e.action, e.actor, e.details])).toEqual([
      ['team.webhook.delete', owner.user.id, { endpointId: made.body.id, url: HOOK_URL, events: ['job.succeeded'] }],
      ['team.webhook.create', owner.user.id, { endpointId: made.body.id, url: HOOK_URL, events: ['job.succeeded'] }],
    ])
  })

  it("carry a member's result link only for the team's own key's runs, never for a member's (decision 162)", async () => {
    const { owner, member, teamId } = await teamWithMember()
    const key = await readResult(await answerOf(createKey(routeArgs(jsonRequest('/api/keys/', { name: 'CI', environment: 'live', team_id: teamId }, { headers: headers(`Token ${owner.token}`) })))))
    const hook = await register(asTeam(owner, teamId))
    const runWith = async (h: Record<string, string>) =>
      readResult(await removeBg(routeArgs(formRequest('/api/remove-bg/', { image: fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') }, { headers: h }))))
    expect((await runWith(asTeam(member, teamId))).status).toBe(200)
    expect((await runWith(headers(`Bearer ${key.body.key}`))).status).toBe(200)
    const payloads = await getDb().selectFrom('webhook_deliveries').select('payload').where('endpoint_id', '=', hook.body.id).orderBy('created_at').execute()
    const data = payloads.map((p) => (typeof p.payload === 'string' ? JSON.parse(p.payload) : p.payload).data)
    expect(data.map((d) => d.status)).toEqual(['succeeded', 'succeeded'])
    expect(data[0].result_url).toBeNull()
    expect(data[1].result_url).toMatch(/^http:\/\/localhost:3000\/api\/results\//)
  })

  it("hear the team's runs, whoever sent them; a team key manages its team's endpoints", async () => {
    const { owner, member, teamId } = await teamWithMember()
    const key = await readResult(await answerOf(createKey(routeArgs(jsonRequest('/api/keys/', { name: 'CI', environment: 'live', team_id: teamId }, { headers: headers(`Token ${owner.token}`) })))))
    expect(key.status).toBe(201)
    const teamHook = await register(headers(`Bearer ${key.body.key}`))
    expect(teamHook.status).toBe(201)
    expect((await list(asTeam(owner, teamId))).body.results.map((e: { id: string }) => e.id)).toEqual([teamHook.body.id])
    const ownHook = await register(headers(`Token ${member.token}`))
    expect(ownHook.status).toBe(201)

    const run = await readResult(
      await removeBg(routeArgs(formRequest('/api/remove-bg/', { image: fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') }, { headers: asTeam(member, teamId) }))),
    )
    expect(run.status).toBe(200)
    const queued = await getDb()
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', 'event_type'])
      .where('endpoint_id', 'in', [teamHook.body.id, ownHook.body.id])
      .execute()
    expect(queued).toEqual([{ endpoint_id: teamHook.body.id, event_type: 'job.succeeded' }])
  })
})
