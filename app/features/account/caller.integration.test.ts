import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createSession, sessionCookieHeader } from '~/features/auth/session.server'
import { BASE } from '../../../tests/support/requests'
import { createVisitorCaller, resolveCaller } from '~/features/account/caller.server'
import { charge } from '~/features/credits/ledger.server'
import { loadViewer } from '~/features/account/viewer.server'
import { visitorCookie } from './visitor-cookie.server'

function request(headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}/api/credits/balance/`, {
    headers: { 'x-facet-client-ip': `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`, ...headers },
  })
}

function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0]
}

async function newUserSession() {
  const user = await getDb()
    .insertInto('users')
    .values({ email: `caller-${randomUUID()}@example.test`, password_hash: 'x', first_name: 'Ada', last_name: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  const { token } = await createSession(user.id)
  return { userId: user.id, token }
}

describe('resolveCaller for visitors', () => {
  it('creates a visitor with the guest allowance, a signed httpOnly Lax cookie, and finds it again', async () => {
    const first = await resolveCaller(request())
    if (first.kind !== 'caller') throw new Error(first.kind)
    expect(first.caller.source).toBe('visitor')
    expect(first.balance).toBe(5)
    expect(first.setCookie).toMatch(/^fs_visitor=/)
    expect(first.setCookie).toMatch(/HttpOnly/)
    expect(first.setCookie).toMatch(/SameSite=Lax/)

    const again = await resolveCaller(request({ cookie: cookiePair(first.setCookie!) }))
    if (again.kind !== 'caller') throw new Error(again.kind)
    expect(again.caller.accountId).toBe(first.caller.accountId)
    expect(again.setCookie).toBeNull()
  })

  it('ignores a forged cookie and one naming a visitor that no longer exists', async () => {
    const forged = `fs_visitor=${Buffer.from(JSON.stringify(randomUUID())).toString('base64')}`
    const preview = await resolveCaller(request({ cookie: forged, 'x-facet-client-ip': '10.1.2.3' }), { create: false })
    expect(preview).toEqual({ kind: 'guest-preview', balance: 5, visitorAddress: '10.1.2.3' })

    const gone = await visitorCookie().serialize(randomUUID())
    const fresh = await resolveCaller(request({ cookie: cookiePair(gone) }))
    if (fresh.kind !== 'caller') throw new Error(fresh.kind)
    expect(fresh.setCookie).not.toBeNull()
  })

  it('creates nothing with create:false', async () => {
    const before = await getDb().selectFrom('visitors').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(await resolveCaller(request(), { create: false })).toEqual({ kind: 'guest-preview', balance: 5, visitorAddress: expect.any(String) })
    const after = await getDb().selectFrom('visitors').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })

  it('a guest preview becomes a visitor from its own address, as resolving with create would make it (a run resolves once)', async () => {
    const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`
    const preview = await resolveCaller(request({ 'x-facet-client-ip': ip }), { create: false })
    if (preview.kind !== 'guest-preview') throw new Error(preview.kind)
    expect(preview.visitorAddress).toBe(ip)
    const created = await createVisitorCaller(preview.visitorAddress)
    expect(created.caller).toMatchObject({ source: 'visitor', teamId: null, userId: null, apiKey: null })
    expect(created.balance).toBe(5)
    expect(created.setCookie).toMatch(/^fs_visitor=/)
    // Counted against the address it came from, and found again by its cookie.
    const day = await getDb().selectFrom('guest_address_days').select('address').where('address', '=', ip).executeTakeFirst()
    expect(day?.address).toBe(ip)
    const again = await resolveCaller(request({ cookie: cookiePair(created.setCookie!), 'x-facet-client-ip': ip }))
    if (again.kind !== 'caller') throw new Error(again.kind)
    expect(again.caller.accountId).toBe(created.caller.accountId)
  })

  it('refreshes the guest balance to 5 on the first request of the next UTC day', async () => {
    const day1 = new Date('2030-01-01T12:00:00Z')
    const created = await resolveCaller(request(), { now: day1 })
    if (created.kind !== 'caller') throw new Error(created.kind)
    const cookie = cookiePair(created.setCookie!)
    await charge({ accountId: created.caller.accountId, amount: 4, toolSlug: 'face_blurrer', idempotencyKey: randomUUID() })
    const sameDay = await resolveCaller(request({ cookie }), { now: new Date('2030-01-01T23:59:59Z') })
    expect(sameDay.kind === 'caller' && sameDay.balance).toBe(1)
    const nextDay = await resolveCaller(request({ cookie }), { now: new Date('2030-01-02T00:00:00Z') })
    expect(nextDay.kind === 'caller' && nextDay.balance).toBe(5)
  })
})

describe('resolveCaller for users', () => {
  it('uses the account of a Token header, creating it and applying the daily floor', async () => {
    const { userId, token } = await newUserSession()
    const resolved = await resolveCaller(request({ authorization: `Token ${token}` }))
    if (resolved.kind !== 'caller') throw new Error(resolved.kind)
    expect(resolved.caller).toMatchObject({ source: 'user', userId, visitorId: null })
    expect(resolved.balance).toBe(10)
    expect(resolved.setCookie).toBeNull()
  })

  it('answers invalid-token for an unknown token, even with a visitor cookie', async () => {
    const visitor = await visitorCookie().serialize(randomUUID())
    expect(await resolveCaller(request({ authorization: 'Token nope', cookie: cookiePair(visitor) }))).toEqual({
      kind: 'invalid-token',
    })
  })
})

describe('loadViewer (every page)', () => {
  it('shows a user their real balance after the daily floor', async () => {
    const { token } = await newUserSession()
    const { viewer, headers } = await loadViewer(request({ authorization: `Token ${token}` }))
    expect(viewer.user?.first_name).toBe('Ada')
    expect(viewer.credits).toEqual({ source: 'user', balance: 10 })
    expect(headers.getSetCookie()).toEqual([])
  })

  it("shows a visitor's real balance, and a browser without a visitor the allowance, creating nothing", async () => {
    const created = await resolveCaller(request())
    if (created.kind !== 'caller') throw new Error(created.kind)
    await charge({ accountId: created.caller.accountId, amount: 3, toolSlug: 'face_blurrer', idempotencyKey: randomUUID() })
    const known = await loadViewer(request({ cookie: cookiePair(created.setCookie!) }))
    expect(known.viewer).toEqual({ user: null, credits: { source: 'visitor', balance: 2 }, teams: [], workingTeam: null })
    const fresh = await loadViewer(request())
    expect(fresh.viewer).toEqual({ user: null, credits: { source: 'visitor', balance: 5 }, teams: [], workingTeam: null })
    expect(fresh.headers.getSetCookie()).toEqual([])
  })

  it('treats an expired or revoked session cookie as a guest instead of failing the page', async () => {
    const stale = (await sessionCookieHeader('revoked-or-unknown-token')).split(';')[0]
    const { viewer } = await loadViewer(request({ cookie: stale }))
    expect(viewer).toEqual({ user: null, credits: { source: 'visitor', balance: 5 }, teams: [], workingTeam: null })
  })
})
