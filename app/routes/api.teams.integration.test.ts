// The teams API and working as a team, through the endpoints with real tool runs: the contract of
// /api/teams (issue 14 point 7), X-Team and team keys, caps as a 402 that charges nothing, another
// team's anything, and a member removed while their job runs.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { writeZip } from '~/features/batches/zip.server'
import { teamAccount } from '~/features/teams/membership.server'
import { NOT_TEAM_MEMBER_MESSAGE } from '~/features/account/caller.server'
import { batchCapMessage, capMessage } from '~/features/teams/messages'
import { findJob } from '~/features/jobs/jobs.server'
import { resetConfigForTests } from '~/config.server'
import { TOOL_JOB_QUEUE, toolQueues } from '~/features/jobs/queue.server'
import { fileOf, fixture, fromEmptyQueueAndFreeSlot } from '../../tests/support/tools'
import { BASE, formRequest, jsonRequest, answerOf, readResult, routeArgs } from '../../tests/support/requests'
import { action as createKey } from './api.keys'
import { action as postBatch } from './api.batches._index'
import { loader as getBatch } from './api.batches.$id'
import { action as postJob } from './api.jobs._index'
import { loader as getJob } from './api.jobs.$id'
import { action as removeBg } from './api.remove-bg'
import { loader as getResult } from './api.results.$id'
import { loader as getTeam } from './api.teams.$id'
import { loader as getActivity } from './api.teams.$id.activity'
import { action as postInvite } from './api.teams.$id.invites'
import { action as deleteInvite } from './api.teams.$id.invites.$inviteId'
import { action as memberAction } from './api.teams.$id.members.$userId'
import { action as createTeamAction, loader as listTeams } from './api.teams._index'
import { action as acceptAction } from './api.teams.invites.accept'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

type Person = Awaited<ReturnType<typeof createVerifiedUser>>

function auth(person: Person, extra: Record<string, string> = {}) {
  return { authorization: `Token ${person.token}`, 'x-facet-client-ip': uniqueAddress(), ...extra }
}

const call = {
  create: (p: Person, body: unknown) => answerOf(createTeamAction(routeArgs(jsonRequest('/api/teams/', body, { headers: auth(p) })))).then(readResult),
  list: (p: Person) => answerOf(listTeams(routeArgs(new Request(`${BASE}/api/teams/`, { headers: auth(p) })))).then(readResult),
  view: (p: Person, id: string, headers: Record<string, string> = auth(p)) => answerOf(getTeam(routeArgs(new Request(`${BASE}/api/teams/${id}/`, { headers }), { id }))).then(readResult),
  activity: (p: Person, id: string) => answerOf(getActivity(routeArgs(new Request(`${BASE}/api/teams/${id}/activity/`, { headers: auth(p) }), { id }))).then(readResult),
  invite: (p: Person, id: string, body: unknown) => answerOf(postInvite(routeArgs(jsonRequest(`/api/teams/${id}/invites/`, body, { headers: auth(p) }), { id }))).then(readResult),
  revoke: (p: Person, id: string, inviteId: string) =>
    answerOf(deleteInvite(routeArgs(new Request(`${BASE}/api/teams/${id}/invites/${inviteId}/`, { method: 'DELETE', headers: auth(p) }), { id, inviteId }))).then(readResult),
  accept: (p: Person, token: string) => answerOf(acceptAction(routeArgs(jsonRequest('/api/teams/invites/accept/', { token }, { headers: auth(p) })))).then(readResult),
  patch: (p: Person, id: string, userId: string, body: unknown) =>
    answerOf(memberAction(routeArgs(jsonRequest(`/api/teams/${id}/members/${userId}/`, body, { method: 'PATCH', headers: auth(p) }), { id, userId }))).then(readResult),
  remove: (p: Person, id: string, userId: string) =>
    answerOf(memberAction(routeArgs(new Request(`${BASE}/api/teams/${id}/members/${userId}/`, { method: 'DELETE', headers: auth(p) }), { id, userId }))).then(readResult),
  key: (p: Person, body: unknown) => answerOf(createKey(routeArgs(jsonRequest('/api/keys/', body, { headers: auth(p) })))).then(readResult),
}

const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

function runRemover(headers: Record<string, string>) {
  return removeBg(routeArgs(formRequest('/api/remove-bg/', { image: photo() }, { headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } }))).then(readResult)
}

function submitJob(headers: Record<string, string>) {
  return postJob(routeArgs(formRequest('/api/jobs/', { tool: 'background-remover', image: photo() }, { headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } }))).then(readResult)
}

/** An owner, a member who accepted through the API, and the team with `credits` granted. */
async function teamOfTwo(credits = 20) {
  const owner = await createVerifiedUser()
  const created = await call.create(owner, { name: `Acme ${randomUUID().slice(0, 6)}` })
  expect(created.status).toBe(201)
  const teamId: string = created.body.id
  const member = await createVerifiedUser({ email: uniqueEmail('member') })
  expect((await call.invite(owner, teamId, { email: member.user.email, role: 'member' })).status).toBe(201)
  const token = (await linkMailedTo(member.user.email)).pathname.split('/').pop()!
  expect((await call.accept(member, token)).status).toBe(200)
  const account = (await teamAccount(teamId))!
  if (credits) await grant({ accountId: account.accountId, amount: credits, kind: 'adjustment', description: 'Pilot' })
  return { owner, member, teamId, accountId: account.accountId, name: created.body.name as string }
}

async function ledgerSum(accountId: string) {
  const row = await getDb().selectFrom('credit_transactions').select(sql<number>`coalesce(sum(delta), 0)::int`.as('sum')).where('account_id', '=', accountId).executeTakeFirstOrThrow()
  return row.sum
}

describe('the /api/teams contract', () => {
  it('creates a team, invites by mail, accepts, and shows the team to its owner and its member', async () => {
    const owner = await createVerifiedUser()
    const created = await call.create(owner, { name: '  Studio North  ' })
    expect(created).toMatchObject({ status: 201, body: { id: expect.any(String), name: 'Studio North' } })
    const teamId = created.body.id
    expect((await call.list(owner)).body).toEqual({ results: [{ id: teamId, name: 'Studio North', role: 'owner' }] })

    const invitedEmail = uniqueEmail('new')
    const invited = await call.invite(owner, teamId, { email: invitedEmail, role: 'admin' })
    expect(invited).toMatchObject({ status: 201, body: { id: expect.any(String), email: invitedEmail, role: 'admin', expires_at: expect.any(String) } })
    const link = await linkMailedTo(invitedEmail)
    expect(link.pathname).toMatch(/^\/teams\/invites\//)

    // The address had no account: it signs up first, then accepts signed in as that address.
    const stranger = await createVerifiedUser()
    const token = link.pathname.split('/').pop()!
    expect(await call.accept(stranger, token)).toMatchObject({ status: 403, body: { error: expect.stringContaining(invitedEmail) } })
    const admin = await createVerifiedUser({ email: invitedEmail })
    expect(await call.accept(admin, token)).toMatchObject({ status: 200, body: { team_id: teamId } })
    expect((await call.accept(admin, token)).status).toBe(410)

    const view = await call.view(owner, teamId)
    expect(view.status).toBe(200)
    expect(view.body).toMatchObject({ id: teamId, name: 'Studio North', balance: 0, seats: { used: 2, limit: 5 }, role: 'owner', invites: [], keys: [] })
    expect(view.body.members).toEqual([
      { user_id: owner.user.id, email: owner.user.email, name: null, role: 'owner', spent_this_month: 0, cap: null },
      { user_id: admin.user.id, email: invitedEmail, name: null, role: 'admin', spent_this_month: 0, cap: null },
    ])
  })

  it('validates input, and answers 404 to anyone outside the team', async () => {
    const { owner, member, teamId } = await teamOfTwo(0)
    expect((await call.create(owner, { name: '' })).status).toBe(400)
    expect((await call.invite(owner, teamId, { email: 'not-an-email', role: 'member' })).status).toBe(400)
    expect((await call.invite(owner, teamId, { email: uniqueEmail(), role: 'boss' })).status).toBe(400)
    expect((await call.patch(owner, teamId, member.user.id, {})).status).toBe(400)
    expect((await call.patch(owner, teamId, member.user.id, { cap: -3 })).status).toBe(400)
    expect((await call.invite(member, teamId, { email: uniqueEmail(), role: 'member' })).status).toBe(403)

    const outsider = await createVerifiedUser()
    expect((await call.view(outsider, teamId)).status).toBe(404)
    expect((await call.activity(outsider, teamId)).status).toBe(404)
    expect((await call.invite(outsider, teamId, { email: uniqueEmail(), role: 'member' })).status).toBe(404)
    expect((await call.patch(outsider, teamId, member.user.id, { cap: 1 })).status).toBe(404)
    expect((await call.remove(outsider, teamId, member.user.id)).status).toBe(404)
    expect((await call.view(outsider, 'not-a-team')).status).toBe(404)
    const anonymous = await answerOf(getTeam(routeArgs(new Request(`${BASE}/api/teams/${teamId}/`), { id: teamId }))).then(readResult)
    expect(anonymous.status).toBe(401)
  })

  it('changes role and cap, keeps the last owner, withdraws invites, and removes members', async () => {
    const { owner, member, teamId } = await teamOfTwo(0)
    expect(await call.patch(owner, teamId, member.user.id, { cap: 15, role: 'admin' })).toMatchObject({ status: 200, body: { user_id: member.user.id, role: 'admin', cap: 15 } })
    expect(await call.patch(owner, teamId, member.user.id, { cap: null })).toMatchObject({ status: 200, body: { cap: null } })
    expect((await call.patch(owner, teamId, owner.user.id, { role: 'member' })).status).toBe(409)
    expect((await call.remove(owner, teamId, owner.user.id)).status).toBe(409)
    expect((await call.remove(member, teamId, owner.user.id)).status).toBe(403)

    const invited = await call.invite(member, teamId, { email: uniqueEmail(), role: 'member' })
    expect((await call.revoke(member, teamId, invited.body.id)).status).toBe(204)
    expect((await call.view(owner, teamId)).body.invites).toEqual([])

    expect((await call.remove(owner, teamId, member.user.id)).status).toBe(204)
    expect((await call.view(member, teamId)).status).toBe(404)
  })
})

describe('working as the team through the API', () => {
  it('charges the team for a run with X-Team, reports its balance, and records the member', async () => {
    const { owner, member, teamId, accountId } = await teamOfTwo(20)
    const ran = await runRemover(auth(member, { 'x-team': teamId }))
    expect(ran.status).toBe(200)
    expect(ran.headers.get('X-Credits-Remaining')).toBe('19')
    const rows = await getDb().selectFrom('credit_transactions').select(['kind', 'delta', 'user_id']).where('account_id', '=', accountId).where('kind', '=', 'consume').execute()
    expect(rows).toEqual([{ kind: 'consume', delta: -1, user_id: member.user.id }])
    expect(await ledgerSum(accountId)).toBe(19)

    const view = await call.view(owner, teamId)
    expect(view.body).toMatchObject({ balance: 19, spent_this_month: 1 })
    expect(view.body.members.find((m: any) => m.user_id === member.user.id).spent_this_month).toBe(1)
    const own = await call.view(member, teamId)
    expect(own.body.members).toEqual([expect.objectContaining({ user_id: member.user.id, spent_this_month: 1 })])
    const activity = await call.activity(owner, teamId)
    expect(activity.body.results[0]).toMatchObject({ email: member.user.email, tool: 'background_remover', credits: -1 })

    const outsider = await createVerifiedUser()
    const refused = await runRemover(auth(outsider, { 'x-team': teamId }))
    expect(refused.status).toBe(403)
    expect(await ledgerSum(accountId)).toBe(19)
  })

  it('answers a run past the member’s cap with a 402 naming the cap, and charges nothing', async () => {
    const { owner, member, teamId, accountId, name } = await teamOfTwo(20)
    await call.patch(owner, teamId, member.user.id, { cap: 1 })
    expect((await runRemover(auth(member, { 'x-team': teamId }))).status).toBe(200)
    const capped = await runRemover(auth(member, { 'x-team': teamId }))
    expect(capped.status).toBe(402)
    expect(capped.body.error).toBe(capMessage(1, name, 1))
    expect(capped.headers.get('X-Credits-Charged')).toBe('0')
    expect(await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', accountId).where('kind', '=', 'consume').execute()).toHaveLength(1)
    // The owner has no cap and the member's own balance is untouched by the team's cap.
    expect((await runRemover(auth(owner, { 'x-team': teamId }))).status).toBe(200)
    expect((await runRemover(auth(member))).status).toBe(200)
  })

  it('answers the same 402 for a run short enough to go inline, which checks the cap at the door too', async () => {
    const { owner, member, teamId, accountId, name } = await teamOfTwo(20)
    await call.patch(owner, teamId, member.user.id, { cap: 1 })
    // Every run short enough, and this process's slot free: runs go inline (decision 176).
    process.env.INLINE_RUN_MS = '3600000'
    process.env.WORKER_CONCURRENCY = '1'
    resetConfigForTests()
    try {
      await fromEmptyQueueAndFreeSlot()
      const first = await runRemover(auth(member, { 'x-team': teamId }))
      expect(first.status).toBe(200)
      // It ran inline: no pg-boss job was ever sent for it.
      expect(await (await toolQueues()).findJobs(TOOL_JOB_QUEUE, { id: first.headers.get('X-Facet-Job-Id')! })).toHaveLength(0)
      await fromEmptyQueueAndFreeSlot()
      const capped = await runRemover(auth(member, { 'x-team': teamId }))
      expect(capped.status).toBe(402)
      expect(capped.body.error).toBe(capMessage(1, name, 1))
      expect(capped.headers.get('X-Credits-Charged')).toBe('0')
      expect(await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', accountId).where('kind', '=', 'consume').execute()).toHaveLength(1)
      // Refused at the door: no job, so no model ran for a run that could not be paid.
      expect(await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', accountId).execute()).toHaveLength(1)
    } finally {
      delete process.env.INLINE_RUN_MS
      delete process.env.WORKER_CONCURRENCY
      resetConfigForTests()
    }
  }, 180_000)

  it('makes team keys for owners and admins only; they always charge the team and are listed on the team', async () => {
    const { owner, member, teamId, accountId } = await teamOfTwo(20)
    expect((await call.key(member, { name: 'ci', environment: 'live', team_id: teamId })).status).toBe(403)
    expect((await call.key(await createVerifiedUser(), { name: 'ci', environment: 'live', team_id: teamId })).status).toBe(404)
    const made = await call.key(owner, { name: 'ci', environment: 'live', team_id: teamId })
    expect(made).toMatchObject({ status: 201, body: { team_id: teamId } })

    const ran = await runRemover({ authorization: `Bearer ${made.body.key}` })
    expect(ran.status).toBe(200)
    expect(ran.headers.get('X-Credits-Remaining')).toBe('19')
    const row = await getDb().selectFrom('credit_transactions').select(['user_id', 'api_key_id']).where('account_id', '=', accountId).where('kind', '=', 'consume').executeTakeFirstOrThrow()
    expect(row).toEqual({ user_id: owner.user.id, api_key_id: made.body.id })
    expect((await runRemover({ authorization: `Bearer ${made.body.key}`, 'x-team': randomUUID() })).status).toBe(403)

    expect((await call.view(owner, teamId)).body.keys).toEqual([expect.objectContaining({ id: made.body.id, name: 'ci' })])
    expect((await call.view(member, teamId)).body.keys).toEqual([])
    // A team key cannot manage teams.
    const byKey = await call.view(owner, teamId, { authorization: `Bearer ${made.body.key}`, 'x-facet-client-ip': uniqueAddress() })
    expect(byKey.status).toBe(403)
  })

  it('lets a removed member’s running job finish on the team, then refuses them everything of the team', async () => {
    const { owner, member, teamId, accountId } = await teamOfTwo(20)
    const memberKey = await call.key(owner, { name: 'owner-ci', environment: 'live', team_id: teamId })
    await call.patch(owner, teamId, member.user.id, { role: 'admin' })
    const adminKey = await call.key(member, { name: 'member-ci', environment: 'live', team_id: teamId })
    expect(adminKey.status).toBe(201)

    const accepted = await submitJob(auth(member, { 'x-team': teamId }))
    expect(accepted.status).toBe(202)
    const jobId: string = accepted.body.id
    expect((await call.remove(owner, teamId, member.user.id)).status).toBe(204)

    let job = await findJob(jobId)
    await vi.waitFor(
      async () => {
        job = await findJob(jobId)
        expect(job?.status).toBe('succeeded')
      },
      { timeout: 60_000, interval: 50 },
    )
    expect(job?.account_id).toBe(accountId)
    expect(job?.refunded).toBe(false)
    const chargeRow = await getDb().selectFrom('credit_transactions').select(['delta', 'user_id']).where('id', '=', job!.charge_transaction_id!).executeTakeFirstOrThrow()
    expect(chargeRow).toEqual({ delta: -1, user_id: member.user.id })
    expect((await teamAccount(teamId))?.balance).toBe(19)

    // New runs as the team are refused; the team's job and result are no longer theirs to read.
    const refused = await runRemover(auth(member, { 'x-team': teamId }))
    expect(refused).toMatchObject({ status: 403, body: { error: NOT_TEAM_MEMBER_MESSAGE } })
    for (const headers of [auth(member, { 'x-team': teamId }), auth(member)]) {
      expect((await getJob(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/`, { headers }), { id: jobId })).then(readResult)).status).toBe(404)
      const resultId = job!.result_id!
      expect((await getResult(routeArgs(new Request(`${BASE}/api/results/${resultId}`, { headers }), { id: resultId })).then(readResult)).status).toBe(404)
    }
    // The owner still reads it as the team.
    expect((await getJob(routeArgs(new Request(`${BASE}/api/jobs/${jobId}/`, { headers: auth(owner, { 'x-team': teamId }) }), { id: jobId })).then(readResult)).status).toBe(200)
    // The team keys the removed member created are revoked; the owner's keep working.
    expect((await runRemover({ authorization: `Bearer ${adminKey.body.key}` })).status).toBe(401)
    expect((await runRemover({ authorization: `Bearer ${memberKey.body.key}` })).status).toBe(200)
    expect(await ledgerSum(accountId)).toBe((await teamAccount(teamId))!.balance)
  })

  it('refuses up front a team batch past the member’s cap; an item that a competing run pushes past it fails unpaid', async () => {
    const { owner, member, teamId, accountId, name } = await teamOfTwo(20)
    await call.patch(owner, teamId, member.user.id, { cap: 2 })
    const headers = auth(member, { 'x-team': teamId })
    const send = (form: FormData) =>
      postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers: auth(member, { 'x-team': teamId }) }))).then(readResult)
    const batchOf = (files: number) => {
      const form = new FormData()
      form.append('tool', 'background-remover')
      for (let i = 0; i < files; i++) form.append('image', photo())
      return send(form)
    }
    const refused = await batchOf(3)
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ error: batchCapMessage(2, name, 0, 3, 1), cost: 3 })
    // A zip is counted by the server alone: the refusal says what it would cost, for the screen's panel.
    const zipForm = new FormData()
    zipForm.append('tool', 'background-remover')
    const rocket = fixture('photos/noface-rocket.jpg')
    const zip = await writeZip(['a', 'b', 'c'].map((stem) => ({ name: `${stem}.jpg`, bytes: rocket })))
    zipForm.append('image', fileOf(zip, 'photos.zip', 'application/zip'))
    const refusedZip = await send(zipForm)
    expect(refusedZip.status).toBe(402)
    expect(refusedZip.body).toMatchObject({ error: batchCapMessage(2, name, 0, 3, 1), cost: 3 })
    expect((await teamAccount(teamId))?.balance).toBe(20)

    // The batch fits the cap when accepted; a single run sent at once competes for the same room, so
    // exactly one of the three runs is refused for the cap, whichever lost, and nothing past it is charged.
    const accepted = await batchOf(2)
    expect(accepted.status).toBe(202)
    const single = await runRemover(auth(member, { 'x-team': teamId }))
    const id: string = accepted.body.id
    let batch: any
    await vi.waitFor(
      async () => {
        batch = (await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers }), { id })).then(readResult)).body
        expect(batch.status).toBe('completed')
      },
      { timeout: 90_000, interval: 100 },
    )
    const capErrors = [
      ...batch.items.filter((i: any) => i.status === 'failed').map((i: any) => i.error),
      ...(single.status === 402 ? [single.body.error] : []),
    ]
    expect(capErrors).toEqual([capMessage(2, name, 2)])
    expect(batch.done + (single.status === 200 ? 1 : 0)).toBe(2)
    const rows = await getDb().selectFrom('credit_transactions').select(['delta', 'user_id']).where('account_id', '=', accountId).where('kind', '=', 'consume').execute()
    expect(rows).toEqual([
      { delta: -1, user_id: member.user.id },
      { delta: -1, user_id: member.user.id },
    ])
    expect((await teamAccount(teamId))?.balance).toBe(18)
    // The batch is the team's: the member working as themselves does not see it.
    expect((await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers: auth(member) }), { id })).then(readResult)).status).toBe(404)
  })
})
