// The operator's team commands, directly and through the running studio's operator channel.
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { OperatorError } from '~/features/operator/errors'
import { operatorSocketPath, sendOperatorCommand, startOperatorChannel, type OperatorChannel } from '~/features/operator/channel.server'
import { teamAccount } from '~/features/teams/membership.server'
import { adjustTeamCredits, parseSeats, setTeamSeats } from '~/features/operator/teams.server'
import { createTeam, getTeamView, inviteMember } from '~/features/teams/teams.server'

const dataDir = mkdtempSync(path.resolve('tests/.tmp/op-teams-'))
let channel: OperatorChannel | null

beforeAll(async () => {
  channel = await startOperatorChannel(dataDir)
})
afterAll(async () => {
  await channel?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function newTeam(name = `Studio ${randomUUID().slice(0, 8)}`) {
  const owner = await createVerifiedUser()
  return { owner, team: await createTeam(owner.user.id, name) }
}

describe('grant-team', () => {
  it('grants to a team by id or exact name, takes back never below zero, and refuses a shared name', async () => {
    const { team } = await newTeam()
    expect(await adjustTeamCredits(team.id, 30, 'Pilot')).toMatchObject({ team, balance: 30 })
    expect(await adjustTeamCredits(team.name, -10, 'Correction')).toMatchObject({ balance: 20 })
    await expect(adjustTeamCredits(team.name, -25, 'Too much')).rejects.toThrow(/balance is only 20/)
    await expect(adjustTeamCredits(team.id, 5, '  ')).rejects.toThrow(/reason/)
    await expect(adjustTeamCredits(`No team ${randomUUID()}`, 5, 'x')).rejects.toBeInstanceOf(OperatorError)

    const shared = `Twins ${randomUUID().slice(0, 8)}`
    await newTeam(shared)
    await newTeam(shared)
    await expect(adjustTeamCredits(shared, 5, 'Which one?')).rejects.toThrow(/2 teams are named/)
  })

  it('works over the running studio’s operator channel', async () => {
    const { team } = await newTeam()
    const reply = await sendOperatorCommand(operatorSocketPath(dataDir), 'grant-team', { team: team.name, amount: 12, reason: 'Goodwill' })
    expect(reply).toMatchObject({ ok: true, result: { team: { id: team.id }, balance: 12 } })
    expect((await teamAccount(team.id))?.balance).toBe(12)
    const refused = await sendOperatorCommand(operatorSocketPath(dataDir), 'grant-team', { team: team.id, amount: -50, reason: 'x' })
    expect(refused).toMatchObject({ ok: false })
  })
})

describe('team-seats', () => {
  it('sets the seat limit, which new invites then respect', async () => {
    const { owner, team } = await newTeam()
    expect(await setTeamSeats(team.name, 2)).toEqual({ team, seats: 2, used: 1 })
    await inviteMember(owner.user.id, team.id, { email: `a-${randomUUID()}@example.test`, role: 'member' })
    await expect(inviteMember(owner.user.id, team.id, { email: `b-${randomUUID()}@example.test`, role: 'member' })).rejects.toMatchObject({ status: 409 })
    const reply = await sendOperatorCommand(operatorSocketPath(dataDir), 'team-seats', { team: team.id, seats: 8 })
    expect(reply).toMatchObject({ ok: true, result: { seats: 8 } })
    expect((await getTeamView(team.id, owner.user.id)).seats).toEqual({ used: 2, limit: 8 })
    await expect(setTeamSeats(team.id, 0)).rejects.toBeInstanceOf(OperatorError)
    expect(() => parseSeats('ten')).toThrow(OperatorError)
    expect(parseSeats('12')).toBe(12)
  })
})
