// An Idempotency-Key belongs to its caller (decision 081): the paying account, the environment and
// the credential. Through the real endpoint (POST /api/face-blur/blur/ on a 512 × 512 portrait, one
// face: charged 1, and over the test keys' quarter-megapixel cap, so a test answer is smaller).
import { randomUUID } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createSession } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { ensureUserAccount, grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { teamAccount } from '~/features/teams/membership.server'
import { acceptInvite, createTeam, inviteMember } from '~/features/teams/teams.server'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { fileOf, fixture } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { KEY_REUSED_MESSAGE } from './door.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

const portrait = () => fileOf(fixture('photos/portrait-astronaut.png'), 'portrait.png', 'image/png')
const otherPhoto = () => fileOf(fixture('photos/degraded-face-astronaut-128px-q35.jpg'), 'small.jpg', 'image/jpeg')

async function blur(headers: Record<string, string>, key: string, file = portrait()) {
  const request = formRequest('/api/face-blur/blur/', { image: file, blur: '20' }, { headers: { ...headers, 'idempotency-key': key, 'x-facet-client-ip': uniqueAddress() } })
  const answer = await readResult(await blurAction(routeArgs(request)))
  const width = answer.status === 200 ? (await sharp(Buffer.from(answer.body as ArrayBuffer)).metadata()).width : null
  return {
    status: answer.status,
    replayed: answer.headers.get('idempotent-replayed') === 'true',
    charged: Number(answer.headers.get('x-credits-charged')),
    width,
    error: answer.status === 200 ? null : (answer.body as { error: string }).error,
  }
}

async function funded() {
  const { user } = await createVerifiedUser()
  await grant({ accountId: await ensureUserAccount(user.id), amount: 20, kind: 'adjustment', description: 'Test credits' })
  return user
}

async function keyHeaders(userId: string, environment: 'live' | 'test', teamId?: string) {
  const made = await createApiKey(userId, { name: `${environment}-${randomUUID().slice(0, 6)}`, environment, ...(teamId ? { teamId } : {}) })
  if (!made.ok) throw new Error('no key')
  return { authorization: `Bearer ${made.key.key}` }
}

describe('Idempotency-Key scope', () => {
  it('the reported bug: a test key run, then a live key with the same key, runs live (charged, full size)', async () => {
    const user = await funded()
    const key = `first-call-${randomUUID()}`
    const test = await blur(await keyHeaders(user.id, 'test'), key)
    expect(test).toMatchObject({ status: 200, replayed: false, charged: 0 })
    expect(test.width).toBeLessThan(512)
    const live = await blur(await keyHeaders(user.id, 'live'), key)
    expect(live).toMatchObject({ status: 200, replayed: false, charged: 1, width: 512 })
  })

  it('a live key run, then a test key with the same key: a test run, not the live result', async () => {
    const user = await funded()
    const key = `k-${randomUUID()}`
    expect(await blur(await keyHeaders(user.id, 'live'), key)).toMatchObject({ status: 200, charged: 1, width: 512 })
    const test = await blur(await keyHeaders(user.id, 'test'), key)
    expect(test).toMatchObject({ status: 200, replayed: false, charged: 0 })
    expect(test.width).toBeLessThan(512)
  })

  it('two API keys of one account are two scopes: the same key runs once for each, and replays within each', async () => {
    const user = await funded()
    const key = `k-${randomUUID()}`
    const first = await keyHeaders(user.id, 'live')
    const second = await keyHeaders(user.id, 'live')
    expect(await blur(first, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur(second, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur(first, key)).toMatchObject({ status: 200, replayed: true, charged: 0, width: 512 })
    expect(await blur(second, key)).toMatchObject({ status: 200, replayed: true, charged: 0 })
  })

  it('a session token and an API key of one user are two scopes', async () => {
    const user = await funded()
    const key = `k-${randomUUID()}`
    const { token } = await createSession(user.id)
    expect(await blur({ authorization: `Token ${token}` }, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur(await keyHeaders(user.id, 'live'), key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
  })

  it('working as a team is another account, and two members of one team are two scopes', async () => {
    const owner = await funded()
    const team = await createTeam(owner.id, `Idem ${randomUUID().slice(0, 6)}`)
    const account = await teamAccount(team.id)
    await grant({ accountId: account!.accountId, amount: 20, kind: 'adjustment', description: 'Team budget' })
    const member = await createVerifiedUser({ email: uniqueEmail('member') })
    await inviteMember(owner.id, team.id, { email: member.user.email, role: 'member' })
    await acceptInvite(member.user.id, (await linkMailedTo(member.user.email)).pathname.split('/').pop()!)
    const ownerToken = { authorization: `Token ${(await createSession(owner.id)).token}` }
    const memberToken = { authorization: `Token ${(await createSession(member.user.id)).token}` }
    const key = `k-${randomUUID()}`
    expect(await blur(ownerToken, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur({ ...ownerToken, 'x-team': team.id }, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur({ ...memberToken, 'x-team': team.id }, key)).toMatchObject({ status: 200, replayed: false, charged: 1 })
    expect(await blur({ ...ownerToken, 'x-team': team.id }, key)).toMatchObject({ status: 200, replayed: true, charged: 0 })
  })

  it('the same key, same scope, another request answers 422 (nothing charged)', async () => {
    const user = await funded()
    const key = `k-${randomUUID()}`
    const live = await keyHeaders(user.id, 'live')
    expect(await blur(live, key)).toMatchObject({ status: 200, charged: 1 })
    expect(await blur(live, key, otherPhoto())).toMatchObject({ status: 422, charged: 0, error: KEY_REUSED_MESSAGE })
  })
})
