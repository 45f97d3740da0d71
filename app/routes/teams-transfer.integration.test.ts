// Moving one's own credits into a team through the team page's form (no JavaScript needed) and
// through POST /api/teams/<id>/transfers/: the form's refusals land on the form with the domain's
// status and words; the API answers its documented shapes.
import { describe, expect, it } from 'vitest'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { TEST_KEY_NO_LIVE_CREDITS } from '~/features/api-keys/messages'
import { ensureUserAccount, getBalance, grant } from '~/features/credits/ledger.server'
import { teamAccount } from '~/features/teams/membership.server'
import { createTeam } from '~/features/teams/teams.server'
import { TRANSFER_AMOUNT_MESSAGE, transferTooLarge } from '~/features/teams/transfer'
import { TEAM_NOTICES } from '~/features/teams/ui/forms'
import { answerOf, BASE, cookieFrom, formRequest, jsonRequest, readResult, routeArgs } from '../../tests/support/requests'
import { action as transferApi } from './api.teams.$id.transfers'
import { action as teamAction, loader as teamLoader } from './teams.$id'

async function person(balance: number) {
  const made = await createVerifiedUser()
  const accountId = await ensureUserAccount(made.user.id)
  if (balance > 0) await grant({ accountId, amount: balance, kind: 'adjustment', description: 'Test credits' })
  const cookie = (await sessionCookieHeader(made.token)).split(';')[0]
  return { ...made, accountId, cookie }
}

async function teamFor(owner: { user: { id: string } }) {
  const team = await createTeam(owner.user.id, 'Fund Me')
  return { ...team, accountId: (await teamAccount(team.id))!.accountId }
}

describe('the team page’s transfer form', () => {
  it('shows the own balance and what may move, moves on submit, and says so once', async () => {
    const owner = await person(45)
    const team = await teamFor(owner)
    const page = await readResult(await teamLoader(routeArgs(new Request(`${BASE}/teams/${team.id}`, { headers: { cookie: owner.cookie } }), { id: team.id })))
    expect(page.body.own).toEqual({ balance: 45, movable: 35, floor: 10 })

    const res = await readResult(
      await teamAction(routeArgs(formRequest(`/teams/${team.id}`, { intent: 'transfer', amount: '30' }, { headers: { cookie: owner.cookie } }), { id: team.id })),
    )
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/teams/${team.id}`)
    const arrival = await readResult(
      await teamLoader(routeArgs(new Request(`${BASE}/teams/${team.id}`, { headers: { cookie: `${owner.cookie}; ${cookieFrom(res.headers)}` } }), { id: team.id })),
    )
    expect(arrival.body.notice).toBe(TEAM_NOTICES.transferred)
    expect(arrival.body.team.balance).toBe(30)
    expect(arrival.body.own).toEqual({ balance: 15, movable: 5, floor: 10 })
    expect(arrival.body.activity[0]).toMatchObject({ email: owner.user.email, credits: 30 })
  })

  it('answers a bad amount (400) and too much (402) on the form, moving nothing', async () => {
    const owner = await person(20)
    const team = await teamFor(owner)
    const submit = async (amount: string) =>
      readResult(await teamAction(routeArgs(formRequest(`/teams/${team.id}`, { intent: 'transfer', amount }, { headers: { cookie: owner.cookie } }), { id: team.id })))
    for (const amount of ['', '0', '-3', '2.5', 'lots']) {
      const bad = await submit(amount)
      expect(bad.status).toBe(400)
      expect(bad.body.form).toBe('transfer')
      expect(bad.body.result.error.amount).toEqual([TRANSFER_AMOUNT_MESSAGE])
    }
    const tooMuch = await submit('11')
    expect(tooMuch.status).toBe(402)
    expect(tooMuch.body).toMatchObject({ form: 'transfer', result: { error: { '': [transferTooLarge(11, 20, 10)] } } })
    expect(await getBalance(owner.accountId)).toBe(20)
    expect(await getBalance(team.accountId)).toBe(0)
  })
})

describe('POST /api/teams/<id>/transfers/', () => {
  const post = (who: { token: string }, id: string, body: unknown) =>
    transferApi(
      routeArgs(jsonRequest(`/api/teams/${id}/transfers/`, body, { headers: { authorization: `Token ${who.token}`, 'x-facet-client-ip': uniqueAddress() } }), { id }),
    ).then(readResult)

  it('moves credits and answers 201 with both balances', async () => {
    const owner = await person(60)
    const team = await teamFor(owner)
    const done = await post(owner, team.id, { amount: 50 })
    expect(done.status).toBe(201)
    expect(done.body).toEqual({ id: expect.any(String), team_id: team.id, amount: 50, balance: 10, team_balance: 50 })
    expect(done.headers.get('cache-control')).toBe('no-store')
  })

  it('refuses strings, fractions and zero (400), too much (402), and strangers (404)', async () => {
    const owner = await person(30)
    const team = await teamFor(owner)
    for (const amount of ['5', 2.5, 0, true, null]) expect((await post(owner, team.id, { amount })).status).toBe(400)
    const tooMuch = await post(owner, team.id, { amount: 25 })
    expect(tooMuch.status).toBe(402)
    expect(tooMuch.body.error).toBe(transferTooLarge(25, 30, 10))
    const stranger = await person(30)
    expect((await post(stranger, team.id, { amount: 5 })).status).toBe(404)
    expect(await getBalance(team.accountId)).toBe(0)
  })

  it('refuses a test key with 403 and its words, moving nothing; a live key of the same person moves', async () => {
    const owner = await person(40)
    const team = await teamFor(owner)
    const keyed = async (environment: 'live' | 'test') => {
      const made = await createApiKey(owner.user.id, { name: `${environment} key`, environment })
      if (!made.ok) throw new Error('no key')
      return transferApi(
        routeArgs(jsonRequest(`/api/teams/${team.id}/transfers/`, { amount: 5 }, { headers: { authorization: `Bearer ${made.key.key}`, 'x-facet-client-ip': uniqueAddress() } }), { id: team.id }),
      ).then(readResult)
    }
    const refused = await keyed('test')
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe(TEST_KEY_NO_LIVE_CREDITS)
    expect(await getBalance(owner.accountId)).toBe(40)
    expect(await getBalance(team.accountId)).toBe(0)
    expect((await keyed('live')).status).toBe(201)
    expect(await getBalance(team.accountId)).toBe(5)
  })

  it('needs a sign-in', async () => {
    const owner = await person(30)
    const team = await teamFor(owner)
    const res = await answerOf(transferApi(routeArgs(jsonRequest(`/api/teams/${team.id}/transfers/`, { amount: 5 }), { id: team.id }))).then(readResult)
    expect(res.status).toBe(401)
  })
})
