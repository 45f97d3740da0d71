// API keys through their endpoints on a real database: the lifecycle, Bearer authentication on
// other endpoints, the gate's refusals and rate limit, and per-key use over 30 days.
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { resolveCaller } from '~/features/account/caller.server'
import { charge, ensureUserAccount, grant, refund } from '~/features/credits/ledger.server'
import { recordToolRun } from '~/features/jobs/runs.server'
import { BASE, jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'
import { loader as profile } from '../../routes/api.auth.profile'
import { loader as balance } from '../../routes/api.credits.balance'
import { action as deleteKey } from '../../routes/api.keys.$id'
import { action as createKey, loader as listKeys } from '../../routes/api.keys'
import { apiKeyGate } from './gate.server'
import { generateApiKey } from './key-format.server'
import { authenticateApiKey, LAST_USED_RESOLUTION_MS } from './keys.server'
import { KEY_INVALID, KEY_MALFORMED, KEYS_NEED_SESSION } from './messages'

function headers(auth: string) {
  return { authorization: auth, 'x-facet-client-ip': uniqueAddress() }
}

async function create(token: string, body: unknown) {
  return readResult(await answerOf(createKey(routeArgs(jsonRequest('/api/keys/', body, { headers: headers(`Token ${token}`) })))))
}
async function list(auth: string) {
  return readResult(await answerOf(listKeys(routeArgs(new Request(`${BASE}/api/keys/`, { headers: headers(auth) })))))
}
async function remove(auth: string, id: string) {
  const request = new Request(`${BASE}/api/keys/${id}/`, { method: 'DELETE', headers: headers(auth) })
  return readResult(await answerOf(deleteKey(routeArgs(request, { id }))))
}
async function me(auth: string) {
  return readResult(await profile(routeArgs(new Request(`${BASE}/api/auth/profile/`, { headers: headers(auth) }))))
}

describe('API key lifecycle', () => {
  it('creates a key shown once, lists it without the secret, authenticates with it, and revokes it', async () => {
    const { user, token } = await createVerifiedUser()
    const made = await create(token, { name: '  CI pipeline ', environment: 'live' })
    expect(made.status).toBe(201)
    expect(made.body).toEqual({ id: expect.any(String), name: 'CI pipeline', environment: 'live', prefix: made.body.key.slice(0, 12), key: expect.stringMatching(/^fs_live_/) })
    const key: string = made.body.key

    const stored = await getDb().selectFrom('api_keys').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow()
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(stored)).not.toContain(key)

    const listed = await list(`Token ${token}`)
    expect(listed.status).toBe(200)
    expect(listed.body.results).toEqual([
      { id: made.body.id, name: 'CI pipeline', environment: 'live', prefix: made.body.prefix, created_at: expect.any(String), last_used_at: null, runs_30d: 0, credits_30d: 0 },
    ])
    expect(JSON.stringify(listed.body)).not.toContain(key)

    const who = await me(`Bearer ${key}`)
    expect(who.status).toBe(200)
    expect(who.body.email).toBe(user.email)
    // A key may list keys, never create or revoke them.
    expect((await list(`Bearer ${key}`)).body.results).toHaveLength(1)
    const minted = readResult(await answerOf(createKey(routeArgs(jsonRequest('/api/keys/', { name: 'x', environment: 'live' }, { headers: headers(`Bearer ${key}`) })))))
    expect(await minted).toMatchObject({ status: 403, body: { error: KEYS_NEED_SESSION } })
    expect((await remove(`Bearer ${key}`, made.body.id)).status).toBe(403)

    expect((await remove(`Token ${token}`, made.body.id)).status).toBe(204)
    expect((await remove(`Token ${token}`, made.body.id)).status).toBe(404)
    expect((await list(`Token ${token}`)).body.results).toEqual([])
    const refused = await list(`Bearer ${key}`)
    expect(refused).toMatchObject({ status: 401, body: { error: KEY_INVALID } })
    expect(refused.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('validates the name and environment', async () => {
    const { token } = await createVerifiedUser()
    expect(await create(token, { name: '', environment: 'live' })).toMatchObject({ status: 400, body: { errors: { name: ['Give the key a name.'] } } })
    expect(await create(token, { name: 'x', environment: 'prod' })).toMatchObject({ status: 400, body: { errors: { environment: ['environment must be "live" or "test".'] } } })
    expect((await create(token, { name: 'x'.repeat(61), environment: 'test' })).status).toBe(400)
  })

  it('needs a signed-in caller', async () => {
    const anonymous = readResult(await answerOf(listKeys(routeArgs(new Request(`${BASE}/api/keys/`)))))
    expect((await anonymous).status).toBe(401)
    expect((await create('not-a-session', { name: 'x', environment: 'live' })).status).toBe(401)
  })

  it("refuses malformed, unknown and revoked keys, and never touches another user's key", async () => {
    const alice = await createVerifiedUser()
    const bob = await createVerifiedUser()
    const aliceKey = (await create(alice.token, { name: 'a', environment: 'test' })).body
    const bobKey = (await create(bob.token, { name: 'b', environment: 'live' })).body

    const malformed = aliceKey.key.slice(0, -1) + (aliceKey.key.endsWith('a') ? 'b' : 'a')
    expect(await list(`Bearer ${malformed}`)).toMatchObject({ status: 401, body: { error: KEY_MALFORMED } })
    expect(await list('Bearer fs_live_short')).toMatchObject({ status: 401, body: { error: KEY_MALFORMED } })
    expect(await list(`Bearer ${generateApiKey('live').key}`)).toMatchObject({ status: 401, body: { error: KEY_INVALID } })
    // Other endpoints refuse them too (in the server, the gate answers first, with these words).
    expect((await me(`Bearer ${malformed}`)).status).toBe(401)

    // Alice cannot revoke Bob's key (it answers as if it did not exist) and Bob's key still works.
    expect((await remove(`Token ${alice.token}`, bobKey.id)).status).toBe(404)
    expect((await remove(`Token ${alice.token}`, 'not-a-uuid')).status).toBe(404)
    expect((await me(`Bearer ${bobKey.key}`)).body.email).toBe(bob.user.email)
    expect((await list(`Bearer ${aliceKey.key}`)).body.results.map((k: { id: string }) => k.id)).toEqual([aliceKey.id])

    // The gate answers the same refusals before any route runs.
    expect(await apiKeyGate(undefined)).toBeNull()
    expect(await apiKeyGate(`Token ${alice.token}`)).toBeNull()
    expect((await apiKeyGate(`Bearer ${malformed}`))?.refusal).toEqual({ status: 401, body: { error: KEY_MALFORMED, detail: KEY_MALFORMED } })
    expect((await remove(`Token ${bob.token}`, bobKey.id)).status).toBe(204)
    expect((await apiKeyGate(`Bearer ${bobKey.key}`))?.refusal).toEqual({ status: 401, body: { error: KEY_INVALID, detail: KEY_INVALID } })
  })
})

describe('Bearer keys as callers', () => {
  it('spend the owner’s credits and name the key on the caller', async () => {
    const { user, token } = await createVerifiedUser()
    const { id, key } = (await create(token, { name: 'shop', environment: 'test' })).body
    const resolved = await resolveCaller(new Request(`${BASE}/api/remove-bg/`, { headers: headers(`Bearer ${key}`) }))
    expect(resolved.kind).toBe('caller')
    if (resolved.kind !== 'caller') return
    expect(resolved.caller).toMatchObject({ source: 'user', userId: user.id, apiKey: { id, environment: 'test' } })
    const viaSession = await resolveCaller(new Request(`${BASE}/api/remove-bg/`, { headers: headers(`Token ${token}`) }))
    expect(viaSession.kind === 'caller' && viaSession.caller.apiKey).toBeNull()
    const credits = await readResult(await balance(routeArgs(new Request(`${BASE}/api/credits/balance/`, { headers: headers(`Bearer ${key}`) }))))
    expect(credits.body).toMatchObject({ source: 'user' })
  })

  it('count runs and credits per key over 30 days, net of refunds', async () => {
    const { user, token } = await createVerifiedUser()
    const { id } = (await create(token, { name: 'batch', environment: 'live' })).body
    const other = (await create(token, { name: 'other', environment: 'live' })).body
    const account = { id: await ensureUserAccount(user.id) }
    await grant({ accountId: account.id, amount: 10, kind: 'adjustment', description: 'test' })
    const first = await charge({ accountId: account.id, amount: 2, toolSlug: 'face_restorer', idempotencyKey: `a-${id}`, apiKeyId: id })
    const second = await charge({ accountId: account.id, amount: 1, toolSlug: 'background_remover', idempotencyKey: `b-${id}`, apiKeyId: id })
    await charge({ accountId: account.id, amount: 1, toolSlug: 'background_remover', idempotencyKey: `c-${id}` })
    expect(first.ok && second.ok).toBe(true)
    if (second.ok) await refund(second.transactionId)
    await recordToolRun({ tool: 'face-restorer', accountId: account.id, outcome: 'success', durationMs: 10, apiKeyId: id })
    await recordToolRun({ tool: 'background-remover', accountId: account.id, outcome: 'failed', durationMs: 10, apiKeyId: id })
    await recordToolRun({ tool: 'background-remover', accountId: account.id, outcome: 'success', durationMs: 10 })
    // Older than the window: not counted.
    await getDb().insertInto('tool_runs').values({ tool: 'face-restorer', account_id: account.id, outcome: 'success', duration_ms: 1, api_key_id: id, created_at: new Date(Date.now() - 31 * 86_400_000) }).execute()
    const rows = (await list(`Token ${token}`)).body.results as Array<{ id: string; runs_30d: number; credits_30d: number }>
    expect(rows.find((r) => r.id === id)).toMatchObject({ runs_30d: 2, credits_30d: 2 })
    expect(rows.find((r) => r.id === other.id)).toMatchObject({ runs_30d: 0, credits_30d: 0 })
  })

  it('note their last use at most once a minute', async () => {
    const { token } = await createVerifiedUser()
    const { id, key } = (await create(token, { name: 'clock', environment: 'live' })).body
    const lastUsed = async () => (await getDb().selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at
    const t0 = new Date('2030-01-01T00:00:00Z')
    await authenticateApiKey(key, getDb(), t0)
    expect(await lastUsed()).toEqual(t0)
    await authenticateApiKey(key, getDb(), new Date(t0.getTime() + LAST_USED_RESOLUTION_MS - 1))
    expect(await lastUsed()).toEqual(t0)
    const later = new Date(t0.getTime() + LAST_USED_RESOLUTION_MS)
    await authenticateApiKey(key, getDb(), later)
    expect(await lastUsed()).toEqual(later)
  })

  it('are rate-limited per key with RateLimit headers and Retry-After', async () => {
    const { token } = await createVerifiedUser()
    const { key } = (await create(token, { name: 'busy', environment: 'test' })).body
    const { key: calm } = (await create(token, { name: 'calm', environment: 'live' })).body
    const first = await apiKeyGate(`Bearer ${key}`)
    expect(first).toEqual({
      headers: { 'RateLimit-Limit': '120', 'RateLimit-Remaining': '119', 'RateLimit-Reset': expect.stringMatching(/^\d+$/), 'X-Facet-Environment': 'test' },
      refusal: null,
    })
    for (let i = 0; i < 119; i++) expect((await apiKeyGate(`Bearer ${key}`))?.refusal).toBeNull()
    const limited = await apiKeyGate(`Bearer ${key}`)
    expect(limited?.refusal?.status).toBe(429)
    expect(limited?.headers).toMatchObject({ 'RateLimit-Remaining': '0', 'Retry-After': expect.stringMatching(/^\d+$/) })
    // Another key of the same user has its own budget.
    expect(await apiKeyGate(`Bearer ${calm}`)).toMatchObject({ refusal: null, headers: { 'RateLimit-Remaining': '119', 'X-Facet-Environment': 'live' } })
  })
})
