// The audit log: append-only in the database itself, written in the same transaction as each action
// it records (operator grants and seats from the CLI and the operator channel, team admins' member
// and invite changes, API keys made and revoked), and read back with filters.
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createApiKey, revokeApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, linkMailedTo } from '~/features/auth/testing.server'
import { adjustUserCredits } from '~/features/operator/credits.server'
import { operatorSocketPath, sendOperatorCommand, startOperatorChannel, type OperatorChannel } from '~/features/operator/channel.server'
import { setTeamSeats } from '~/features/operator/teams.server'
import { acceptInvite, changeMember, createTeam, inviteMember, leaveTeam, removeMember, revokeInvite } from '~/features/teams/teams.server'
import { listAudit, recordAudit } from './audit.server'

const dataDir = mkdtempSync(path.resolve('tests/.tmp/op-audit-'))
let channel: OperatorChannel | null

beforeAll(async () => {
  channel = await startOperatorChannel(dataDir)
})
afterAll(async () => {
  await channel?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Every entry about one target, oldest first. */
async function entriesFor(targetId: string) {
  const { rows } = await listAudit({ target: targetId })
  return rows.reverse()
}

async function teamWithMember() {
  const owner = await createVerifiedUser()
  const member = await createVerifiedUser()
  const team = await createTeam(owner.user.id, `Audit ${randomUUID().slice(0, 8)}`)
  const invite = await inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' })
  const token = (await linkMailedTo(member.user.email)).pathname.split('/').pop()!
  await acceptInvite(member.user.id, token)
  return { owner, member, team, inviteId: invite.inviteId }
}

describe('the audit_log table', () => {
  it('takes inserts and refuses UPDATE, DELETE and TRUNCATE', async () => {
    const user = await createVerifiedUser()
    const target = randomUUID()
    await getDb()
      .transaction()
      .execute((trx) => recordAudit({ actor: { userId: user.user.id }, action: 'credits.grant', targetType: 'user', targetId: target, details: { amount: 1 } }, trx))
    const [entry] = await entriesFor(target)
    expect(entry).toMatchObject({ actor: user.user.id, actorEmail: user.user.email, action: 'credits.grant', details: { amount: 1 } })

    await expect(sql`UPDATE audit_log SET action = 'credits.grant' WHERE id = ${entry.id}`.execute(getDb())).rejects.toThrow(/append-only/)
    await expect(sql`DELETE FROM audit_log WHERE id = ${entry.id}`.execute(getDb())).rejects.toThrow(/append-only/)
    await expect(sql`TRUNCATE audit_log`.execute(getDb())).rejects.toThrow(/append-only/)
    expect(await entriesFor(target)).toHaveLength(1)
  })

  it('keeps the actor’s email as it was when they acted', async () => {
    const user = await createVerifiedUser()
    const target = randomUUID()
    await getDb()
      .transaction()
      .execute((trx) => recordAudit({ actor: { userId: user.user.id }, action: 'team.seats.set', targetType: 'team', targetId: target }, trx))
    await getDb().updateTable('users').set({ email: `renamed-${user.user.email}` }).where('id', '=', user.user.id).execute()
    expect((await entriesFor(target))[0].actorEmail).toBe(user.user.email)
  })
})

describe('operator grants and seats (the CLI’s functions)', () => {
  it('a grant run as the CLI does writes an entry by "cli"; a refused one writes none', async () => {
    const user = await createVerifiedUser()
    await adjustUserCredits(user.user.email, 25, 'Goodwill')
    await expect(adjustUserCredits(user.user.email, -1000, 'Too much')).rejects.toThrow(/balance is only/)
    const entries = await entriesFor(user.user.id)
    expect(entries).toHaveLength(1)
    const { balanceBefore } = entries[0].details as { balanceBefore: number }
    expect(balanceBefore).toEqual(expect.any(Number))
    expect(entries[0]).toMatchObject({
      actor: 'cli',
      actorEmail: null,
      action: 'credits.grant',
      targetType: 'user',
      details: { email: user.user.email, amount: 25, reason: 'Goodwill', via: 'cli', balance: balanceBefore + 25 },
    })
  })

  it('grants and seats over the running studio’s operator channel are audited too', async () => {
    const user = await createVerifiedUser()
    const reply = await sendOperatorCommand(operatorSocketPath(dataDir), 'grant', { email: user.user.email, amount: 7, reason: 'Support ticket 12' })
    expect(reply).toMatchObject({ ok: true })
    expect(await entriesFor(user.user.id)).toEqual([expect.objectContaining({ actor: 'cli', action: 'credits.grant', details: expect.objectContaining({ amount: 7, via: 'cli' }) })])

    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Seats ${randomUUID().slice(0, 8)}`)
    expect(await sendOperatorCommand(operatorSocketPath(dataDir), 'grant-team', { team: team.id, amount: 40, reason: 'Pilot' })).toMatchObject({ ok: true })
    expect(await sendOperatorCommand(operatorSocketPath(dataDir), 'team-seats', { team: team.id, seats: 9 })).toMatchObject({ ok: true })
    const entries = await entriesFor(team.id)
    expect(entries.map((e) => [e.actor, e.action])).toEqual([
      ['cli', 'team.credits.grant'],
      ['cli', 'team.seats.set'],
    ])
    expect(entries[0].details).toMatchObject({ amount: 40, balanceBefore: 0, balance: 40 })
    expect(entries[1].details).toMatchObject({ seats: 9, previous: 5, members: 1 })
  })

  it('a refused seat change writes no entry', async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Seats ${randomUUID().slice(0, 8)}`)
    await expect(setTeamSeats(team.id, 0)).rejects.toThrow(/Seats must be/)
    expect(await entriesFor(team.id)).toEqual([])
  })
})

describe('team admins’ actions', () => {
  it('invite sent, accepted, role and cap changed, member removed: one entry each, by the one who acted', async () => {
    const { owner, member, team, inviteId } = await teamWithMember()
    await changeMember(owner.user.id, team.id, member.user.id, { role: 'admin' })
    await changeMember(owner.user.id, team.id, member.user.id, { cap: 30 })
    await removeMember(owner.user.id, team.id, member.user.id)
    const entries = await entriesFor(team.id)
    expect(entries.map((e) => [e.actorEmail, e.action])).toEqual([
      [owner.user.email, 'team.invite.send'],
      [member.user.email, 'team.member.join'],
      [owner.user.email, 'team.member.role'],
      [owner.user.email, 'team.member.cap'],
      [owner.user.email, 'team.member.remove'],
    ])
    expect(entries[0].details).toMatchObject({ email: member.user.email.toLowerCase(), role: 'member', inviteId })
    expect(entries[2].details).toMatchObject({ userId: member.user.id, role: 'admin', previousRole: 'member' })
    expect(entries[3].details).toMatchObject({ userId: member.user.id, cap: 30 })
    expect(entries[4].details).toMatchObject({ userId: member.user.id, role: 'admin' })
  })

  it('an invite withdrawn and a member leaving are recorded; a refused removal is not', async () => {
    const { owner, member, team } = await teamWithMember()
    const other = await inviteMember(owner.user.id, team.id, { email: `later-${randomUUID()}@example.test`, role: 'member' })
    await revokeInvite(owner.user.id, team.id, other.inviteId)
    // A member cannot remove the owner: refused, nothing recorded.
    await expect(removeMember(member.user.id, team.id, owner.user.id)).rejects.toMatchObject({ status: 403 })
    await leaveTeam(member.user.id, team.id)
    const actions = (await entriesFor(team.id)).map((e) => [e.actorEmail, e.action])
    expect(actions.slice(2)).toEqual([
      [owner.user.email, 'team.invite.send'],
      [owner.user.email, 'team.invite.revoke'],
      [member.user.email, 'team.member.leave'],
    ])
  })

  it('API keys made and revoked (own and team keys)', async () => {
    const { owner, team } = await teamWithMember()
    const own = await createApiKey(owner.user.id, { name: 'Script', environment: 'live' })
    const teamKey = await createApiKey(owner.user.id, { name: 'Team CI', environment: 'test', teamId: team.id })
    if (!own.ok || !teamKey.ok) throw new Error('keys were refused')
    expect(await revokeApiKey(owner.user.id, teamKey.key.id)).toBe(true)
    expect(await revokeApiKey(owner.user.id, teamKey.key.id)).toBe(false)
    expect((await entriesFor(own.key.id)).map((e) => e.action)).toEqual(['api_key.create'])
    const teamKeyEntries = await entriesFor(teamKey.key.id)
    expect(teamKeyEntries.map((e) => [e.actorEmail, e.action])).toEqual([
      [owner.user.email, 'api_key.create'],
      [owner.user.email, 'api_key.revoke'],
    ])
    expect(teamKeyEntries[0].details).toMatchObject({ name: 'Team CI', environment: 'test', teamId: team.id })
    expect(JSON.stringify(teamKeyEntries)).not.toContain(teamKey.key.key)
  })
})

describe('listAudit filters', () => {
  it('by action, actor (email, id or cli), target and UTC days', async () => {
    const { owner, member, team } = await teamWithMember()
    await adjustUserCredits(member.user.email, 3, 'Filter test')
    const today = new Date().toISOString().slice(0, 10)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)

    const byOwner = await listAudit({ actor: owner.user.email.toUpperCase(), target: team.id })
    expect(byOwner.rows.map((r) => r.action)).toEqual(['team.invite.send'])
    expect((await listAudit({ actor: member.user.id, target: team.id })).rows.map((r) => r.action)).toEqual(['team.member.join'])
    expect((await listAudit({ actor: 'cli', target: member.user.id })).rows.map((r) => r.action)).toEqual(['credits.grant'])
    expect((await listAudit({ action: 'team.member.join', target: team.id })).rows).toHaveLength(1)
    expect((await listAudit({ action: 'credits.grant', target: team.id })).rows).toHaveLength(0)
    expect((await listAudit({ target: team.id, from: today, to: today })).rows).toHaveLength(2)
    expect((await listAudit({ target: team.id, from: tomorrow })).rows).toHaveLength(0)
    expect((await listAudit({ target: team.id, to: yesterday })).rows).toHaveLength(0)
  })
})
