import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createSession, sessionCookieHeader } from '~/features/auth/session.server'
import { loader as balanceLoader } from '~/routes/api.credits.balance'
import { loader as packagesLoader } from '~/routes/api.credits.packages'
import { action as purchaseAction } from '~/routes/api.credits.purchase'
import { loader as transactionsLoader } from '~/routes/api.credits.transactions'
import { loader as creditsPageLoader } from '~/routes/credits'
import { BASE, cookieFrom, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { charge, ensureUserAccount, grantWelcomeBonus, refund } from './ledger.server'

function address() {
  return `198.51.100.${Math.floor(Math.random() * 250)}`
}

function get(path: string, headers: Record<string, string> = {}) {
  return new Request(BASE + path, { headers: { 'x-facet-client-ip': address(), ...headers } })
}

async function signedInUser() {
  const user = await getDb()
    .insertInto('users')
    .values({ email: `api-${randomUUID()}@example.test`, password_hash: 'x', first_name: null, last_name: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  const { token } = await createSession(user.id)
  return { userId: user.id, token, accountId: await ensureUserAccount(user.id) }
}

describe('GET /api/credits/balance/', () => {
  it('gives a new visitor 5 credits and a cookie that finds the same account again', async () => {
    const first = await readResult(await balanceLoader(routeArgs(get('/api/credits/balance/'))))
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ source: 'visitor', balance: 5 })
    const cookie = cookieFrom(first.headers)
    expect(cookie).toMatch(/^fs_visitor=/)

    const again = await readResult(await balanceLoader(routeArgs(get('/api/credits/balance', { cookie }))))
    expect(again.body).toEqual({ source: 'visitor', balance: 5 })
    expect(again.headers.getSetCookie()).toEqual([])
  })

  it('gives a user balance, lifetime_spent and the latest transaction', async () => {
    const { userId, token, accountId } = await signedInUser()
    await grantWelcomeBonus(userId)
    await charge({ accountId, amount: 2, toolSlug: 'face_restorer', idempotencyKey: randomUUID() })
    const { status, body } = await readResult(
      await balanceLoader(routeArgs(get('/api/credits/balance/', { authorization: `Token ${token}` }))),
    )
    expect(status).toBe(200)
    expect(body).toMatchObject({
      source: 'user',
      balance: 48,
      lifetime_spent: 2,
      latest_transaction: { kind: 'consume', delta: -2, tool_slug: 'face_restorer' },
    })
    expect(typeof body.latest_transaction.created_at).toBe('string')
  })

  it('answers 401 with an error for a token that names no session', async () => {
    const { status, body } = await readResult(
      await balanceLoader(routeArgs(get('/api/credits/balance/', { authorization: 'Token not-a-session' }))),
    )
    expect(status).toBe(401)
    expect(body.error).toEqual(expect.any(String))
  })
})

describe('GET /api/credits/packages/', () => {
  it('lists the seeded packages in dollars, cacheable for 60 s', async () => {
    const { status, headers, body } = await readResult(await packagesLoader())
    expect(status).toBe(200)
    expect(headers.get('cache-control')).toBe('public, max-age=60')
    expect(body.results).toEqual([
      { id: 'starter', credits: 100, price: 9, label: null },
      { id: 'studio', credits: 500, price: 39, label: 'Most popular' },
      { id: 'agency', credits: 2000, price: 129, label: 'Best value' },
    ])
  })
})

describe('GET /api/credits/transactions/', () => {
  it('requires a sign-in', async () => {
    const res = await readResult(await transactionsLoader(routeArgs(get('/api/credits/transactions/'))))
    expect(res.status).toBe(401)
    expect(res.body.detail).toEqual(expect.any(String))
    const bad = await readResult(
      await transactionsLoader(routeArgs(get('/api/credits/transactions/', { authorization: 'Token nope' }))),
    )
    expect(bad.status).toBe(401)
  })

  it('lists the user ledger newest first, privately cacheable for 30 s, with the session cookie too', async () => {
    const { userId, token, accountId } = await signedInUser()
    await grantWelcomeBonus(userId)
    const charged = await charge({ accountId, amount: 1, toolSlug: 'face_blurrer', idempotencyKey: randomUUID() })
    if (!charged.ok) throw new Error('charge failed')
    await refund(charged.transactionId, 'No face found')
    const cookie = (await sessionCookieHeader(token)).split(';')[0]
    const { status, headers, body } = await readResult(
      await transactionsLoader(routeArgs(get('/api/credits/transactions/', { cookie }))),
    )
    expect(status).toBe(200)
    expect(headers.get('cache-control')).toBe('private, max-age=30')
    expect(body.results.map((t: { kind: string; delta: number }) => [t.kind, t.delta])).toEqual([
      ['adjustment', 1],
      ['consume', -1],
      ['bonus', 50],
    ])
    expect(Object.keys(body.results[0]).sort()).toEqual(['created_at', 'delta', 'description', 'id', 'kind', 'tool_slug'])
  })

  it('refuses a nonsensical limit', async () => {
    const { token } = await signedInUser()
    const res = await readResult(
      await transactionsLoader(routeArgs(get('/api/credits/transactions/?limit=0', { authorization: `Token ${token}` }))),
    )
    expect(res.status).toBe(400)
  })
})

describe('POST /api/credits/purchase/', () => {
  it('answers 401 to a guest', async () => {
    const res = await readResult(await purchaseAction(routeArgs(jsonRequest('/api/credits/purchase/', { package_id: 'starter' }))))
    expect(res.status).toBe(401)
    expect(res.body.error).toBe('Sign in to purchase credits.')
  })

  it('answers 400 to an unknown package and 503 paused to a known one, adding no credits', async () => {
    const { token, accountId } = await signedInUser()
    const auth = { headers: { authorization: `Token ${token}` } }
    const unknown = await readResult(await purchaseAction(routeArgs(jsonRequest('/api/credits/purchase/', { package_id: 'gold' }, auth))))
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toBe('Unknown credit package.')
    const missing = await readResult(await purchaseAction(routeArgs(jsonRequest('/api/credits/purchase/', {}, auth))))
    expect(missing.status).toBe(400)
    const paused = await readResult(await purchaseAction(routeArgs(jsonRequest('/api/credits/purchase/', { package_id: 'studio' }, auth))))
    expect(paused.status).toBe(503)
    expect(paused.body.error).toBe('Purchasing is temporarily paused.')
    const rows = await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', accountId).execute()
    expect(rows).toHaveLength(0)
  })
})

describe('/credits loader', () => {
  it('shows a guest without a cookie the allowance, packages and no activity, creating nothing', async () => {
    const { body } = await readResult(await creditsPageLoader(routeArgs(get('/credits'))))
    expect(body).toMatchObject({
      signedIn: false,
      source: 'visitor',
      summary: { balance: 5, lifetimeSpent: 0, usageEvents: 0, topUps: 0 },
      recent: [],
    })
    expect(body.packages).toHaveLength(3)
  })

  it('shows a user their stats (usage net of refunds) and the latest 6 transactions', async () => {
    const { userId, token, accountId } = await signedInUser()
    await grantWelcomeBonus(userId)
    for (let i = 0; i < 7; i++) await charge({ accountId, amount: 1, toolSlug: 'background_remover', idempotencyKey: randomUUID() })
    const last = await charge({ accountId, amount: 2, toolSlug: 'image_enhancer', idempotencyKey: randomUUID() })
    if (last.ok) await refund(last.transactionId)
    const { body } = await readResult(await creditsPageLoader(routeArgs(get('/credits', { authorization: `Token ${token}` }))))
    expect(body.signedIn).toBe(true)
    expect(body.summary).toEqual({ balance: 43, lifetimeSpent: 7, usageEvents: 7, topUps: 1 })
    expect(body.recent).toHaveLength(6)
    expect(body.recent[0]).toMatchObject({ kind: 'adjustment', delta: 2, tool_slug: 'image_enhancer' })
  })
})
