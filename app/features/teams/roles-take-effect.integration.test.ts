// A change of role or a removal takes effect at once through every credential the person holds
// (decision 162): sessions (the role is read on every request), team keys they made (revoked, and
// refused while their maker no longer manages the team, even a key older than the rule), invites they
// sent (withdrawn). The audit entry names the value before and after, and what was withdrawn.
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { listAudit } from '~/features/audit/audit.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { MANAGERS_ONLY } from './messages'
import { acceptInvite, changeMember, createTeam, describeInvite, inviteMember, removeMember, TeamError } from './teams.server'
import { BASE } from '../../../tests/support/requests'

type Person = Awaited<ReturnType<typeof createVerifiedUser>>

const kindOf = async (authorization: string) => (await getAuthentication(new Request(`${BASE}/api/keys/`, { headers: { authorization } }))).kind

async function inviteAndJoin(owner: Person, teamId: string, role: 'admin' | 'member'): Promise<Person> {
  const person = await createVerifiedUser()
  await inviteMember(owner.user.id, teamId, { email: person.user.email, role })
  await acceptInvite(person.user.id, (await linkMailedTo(person.user.email)).pathname.split('/').pop()!)
  return person
}

/** An admin with a team key and a pending invite of their own. */
async function adminWithPowers() {
  const owner = await createVerifiedUser()
  const team = await createTeam(owner.user.id, `Roles ${Date.now()}`)
  const admin = await inviteAndJoin(owner, team.id, 'admin')
  const key = await createApiKey(admin.user.id, { name: 'admin pipeline', environment: 'live', teamId: team.id })
  if (!key.ok) throw new Error('no key')
  const invitee = uniqueEmail('invitee')
  const invite = await inviteMember(admin.user.id, team.id, { email: invitee, role: 'member' })
  const inviteToken = (await linkMailedTo(invitee)).pathname.split('/').pop()!
  expect(await kindOf(`Bearer ${key.key.key}`)).toBe('key')
  expect((await describeInvite(inviteToken))?.status).toBe('pending')
  return { owner, team, admin, key: key.key, invite, inviteToken }
}

async function refusal(promise: Promise<unknown>): Promise<TeamError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof TeamError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('a demotion or a removal takes effect through every credential at once', () => {
  it('a demoted admin: their team key stops, their invite is withdrawn, their session can no longer manage; the audit says before and after', async () => {
    const { owner, team, admin, key, invite, inviteToken } = await adminWithPowers()
    await changeMember(owner.user.id, team.id, admin.user.id, { role: 'member' })

    expect(await kindOf(`Bearer ${key.key}`)).toBe('invalid')
    expect((await describeInvite(inviteToken))?.status).toBe('revoked')
    // The same session, the next request: refused as a member.
    const refused = await refusal(inviteMember(admin.user.id, team.id, { email: uniqueEmail(), role: 'member' }))
    expect([refused.status, refused.message]).toEqual([403, MANAGERS_ONLY])

    const [entry] = (await listAudit({ action: 'team.member.role', target: team.id })).rows
    expect(entry.details).toMatchObject({ userId: admin.user.id, previousRole: 'admin', role: 'member', revokedKeys: [key.id], withdrawnInvites: [invite.inviteId] })
  })

  it('a removed admin: the same, in the removal entry', async () => {
    const { owner, team, admin, key, invite, inviteToken } = await adminWithPowers()
    await removeMember(owner.user.id, team.id, admin.user.id)
    expect(await kindOf(`Bearer ${key.key}`)).toBe('invalid')
    expect((await describeInvite(inviteToken))?.status).toBe('revoked')
    const [entry] = (await listAudit({ action: 'team.member.remove', target: team.id })).rows
    expect(entry.details).toMatchObject({ userId: admin.user.id, role: 'admin', revokedKeys: [key.id], withdrawnInvites: [invite.inviteId] })
  })

  it('a team key made before the rule is refused once its maker no longer manages the team', async () => {
    const { team, admin, key } = await adminWithPowers()
    // A demotion written as older code did: the role changed, the key left alone.
    await getDb().updateTable('team_members').set({ role: 'member' }).where('team_id', '=', team.id).where('user_id', '=', admin.user.id).execute()
    expect(await kindOf(`Bearer ${key.key}`)).toBe('invalid')
    // Promoted back, the same key works again: it was refused, not revoked.
    await getDb().updateTable('team_members').set({ role: 'admin' }).where('team_id', '=', team.id).where('user_id', '=', admin.user.id).execute()
    expect(await kindOf(`Bearer ${key.key}`)).toBe('key')
  })

  it('an owner made admin keeps their keys but loses the owner invites they sent', async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Owners ${Date.now()}`)
    const second = await inviteAndJoin(owner, team.id, 'admin')
    await changeMember(owner.user.id, team.id, second.user.id, { role: 'owner' })
    const key = await createApiKey(second.user.id, { name: 'owner key', environment: 'live', teamId: team.id })
    if (!key.ok) throw new Error('no key')
    const ownerInvitee = uniqueEmail('co-owner')
    const memberInvitee = uniqueEmail('member')
    await inviteMember(second.user.id, team.id, { email: ownerInvitee, role: 'owner' })
    await inviteMember(second.user.id, team.id, { email: memberInvitee, role: 'member' })
    const tokenOf = async (email: string) => (await linkMailedTo(email)).pathname.split('/').pop()!
    const [ownerInvite, memberInvite] = [await tokenOf(ownerInvitee), await tokenOf(memberInvitee)]

    await changeMember(owner.user.id, team.id, second.user.id, { role: 'admin' })
    expect(await kindOf(`Bearer ${key.key.key}`)).toBe('key')
    expect((await describeInvite(ownerInvite))?.status).toBe('revoked')
    expect((await describeInvite(memberInvite))?.status).toBe('pending')
  })

  it("a cap change records the cap before and after", async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Caps ${Date.now()}`)
    const member = await inviteAndJoin(owner, team.id, 'member')
    await changeMember(owner.user.id, team.id, member.user.id, { cap: 40 })
    await changeMember(owner.user.id, team.id, member.user.id, { cap: null })
    const entries = (await listAudit({ action: 'team.member.cap', target: team.id })).rows
    expect(entries.map((e) => [e.details.previousCap, e.details.cap])).toEqual([
      [40, null],
      [null, 40],
    ])
  })
})
