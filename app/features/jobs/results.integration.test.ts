// The encrypted results store and GET /api/results/<id>: for the owner's cookie, token or key, and for the
// holder of a signed link (decision 174).
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { RESULT_LINK_TTL_SECONDS, signedResultUrl } from './result-links.server'
import { readResult as readStored, storeResult, sweepExpiredResults } from './results.server'
import { action as restoreAction } from '~/routes/api.face-retouch.restore'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, fixture, newUser, newVisitor, toolRequest, type TestCaller } from '../../../tests/support/tools'

const getResult = async (id: string, caller: TestCaller | null, query = '') =>
  readResult(
    await resultLoader(routeArgs(new Request(`${BASE}/api/results/${id}${query}`, { headers: caller?.headers ?? {} }), { id })),
  )

/** GET a link as given (`/api/results/<id>?expires=…&signature=…`), with the headers of whoever sends it. */
const getLink = async (link: string, headers: Record<string, string> = {}) => {
  const id = /\/api\/results\/([^/?]+)/.exec(link)![1]!
  return readResult(await resultLoader(routeArgs(new Request(`${BASE}${link}`, { headers }), { id })))
}

const SIGNED_RESULT_URL = /^\/api\/results\/([0-9a-f-]{36})\?expires=(\d+)&signature=[\w-]{43}$/

async function userWithKey() {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: 'script', environment: 'live' })
  if (!made.ok) throw new Error('no key')
  return { accountId: await ensureUserAccount(user.id), key: made.key.key }
}

describe('results store', () => {
  it('keeps the bytes encrypted at rest and returns them only to the owner', async () => {
    const owner = await newVisitor()
    const other = await newVisitor()
    const bytes = await sharp({ create: { width: 3, height: 3, channels: 3, background: '#abcdef' } }).png().toBuffer()
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'face-restored.png' })

    const row = await getDb().selectFrom('results').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(Buffer.from(row.ciphertext).equals(bytes)).toBe(false)
    expect(Buffer.from(row.ciphertext).includes(bytes.subarray(0, 8))).toBe(false)
    expect(row.iv.byteLength).toBe(12)
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(24 * 3600_000)

    const mine = await getResult(id, owner)
    expect(mine.status).toBe(200)
    expect(Buffer.from(mine.body).equals(bytes)).toBe(true)
    expect(mine.headers.get('cache-control')).toBe('private, no-store')
    expect(mine.headers.get('content-disposition')).toMatch(/^inline; filename="face-restored.png"/)
    expect((await getResult(id, owner, '?download=1')).headers.get('content-disposition')).toMatch(/^attachment;/)

    expect((await getResult(id, other)).status).toBe(404)
    expect((await getResult(id, null)).status).toBe(404)
    expect((await getResult('not-a-uuid', owner)).status).toBe(404)
  })

  it('a tampered row does not decrypt, and expired results are gone and swept', async () => {
    const owner = await newVisitor()
    const bytes = Buffer.from('result bytes')
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'x.png' })
    const row = await getDb().selectFrom('results').select(['ciphertext']).where('id', '=', id).executeTakeFirstOrThrow()
    const flipped = Buffer.from(row.ciphertext)
    flipped[0] = flipped[0]! ^ 0xff
    await getDb().updateTable('results').set({ ciphertext: flipped }).where('id', '=', id).execute()
    expect(await readStored(id, owner.accountId)).toBeNull()

    const old = await storeResult({
      ownerAccountId: owner.accountId,
      bytes,
      contentType: 'image/png',
      filename: 'old.png',
      now: new Date(Date.now() - 25 * 3600_000),
    })
    const fresh = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'new.png' })
    expect(await readStored(old, owner.accountId)).toBeNull()
    expect(await sweepExpiredResults()).toBeGreaterThanOrEqual(1)
    const left = await getDb().selectFrom('results').select('id').where('id', 'in', [old, fresh]).execute()
    expect(left.map((r) => r.id)).toEqual([fresh])
    expect((await readStored(fresh, owner.accountId))?.bytes.equals(bytes)).toBe(true)
  })
})

describe('POST /api/face-retouch/restore/', () => {
  it('answers JSON with a signed restored_url and gfpgan_available; charges 2 credits, or 1 in Standard detail', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const answer = await readResult(
      await restoreAction(
        routeArgs(toolRequest('/api/face-retouch/restore/', { image: fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'face.jpg') }, user.headers)),
      ),
    )
    expect(answer.status).toBe(200)
    // The engine that ran is named in the body and in X-Facet-Note.
    const engine = answer.body.gfpgan_available ? /^Faces restored by GFPGAN/ : /^Fallback detail mode \(GFPGAN is not installed\)/
    expect(answer.body).toEqual({
      restored_url: expect.stringMatching(SIGNED_RESULT_URL),
      gfpgan_available: expect.any(Boolean),
      // The stored result's name: a JPEG portrait in, a JPEG out by default (decision 173).
      filename: 'face-restored.jpg',
      note: expect.stringMatching(engine),
    })
    expect(answer.headers.get('X-Facet-Note')).toBe(answer.body.note)
    // Standard detail (no face-restoration model) costs less than a real restoration (issue 35).
    expect(answer.headers.get('X-Credits-Remaining')).toBe(String(balance - (answer.body.gfpgan_available ? 2 : 1)))
    const id = SIGNED_RESULT_URL.exec(answer.body.restored_url)![1]!
    // The link itself opens the result, with no cookie or token at all (a script's second call).
    expect((await getLink(answer.body.restored_url)).status).toBe(200)
    const image = await getResult(id, user)
    expect(image.status).toBe(200)
    // At 2× the input, as GFPGAN's --upscale 2.
    expect(await sharp(Buffer.from(image.body)).metadata()).toMatchObject({ format: 'jpeg', width: 128, height: 128 })
    expect((await getResult(id, await newVisitor())).status).toBe(404)
  })

  it('a picture without a face comes back but costs nothing', async () => {
    const visitor = await newVisitor()
    const answer = await readResult(
      await restoreAction(
        routeArgs(toolRequest('/api/face-retouch/restore/', { image: fileOf(fixture('photos/noface-cat-chelsea.png'), 'cat.png') }, visitor.headers)),
      ),
    )
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Remaining')).toBe('5')
    expect(await balanceOf(visitor)).toBe(5)
    expect(answer.body.note).toBeUndefined()
    const image = await getResult(SIGNED_RESULT_URL.exec(answer.body.restored_url)![1]!, visitor)
    expect(await sharp(Buffer.from(image.body)).metadata()).toMatchObject({ width: 451, height: 300 })
  })

  it('errors carry gfpgan_available too', async () => {
    const visitor = await newVisitor()
    const answer = await readResult(
      await restoreAction(routeArgs(toolRequest('/api/face-retouch/restore/', { image: fileOf(Buffer.from('nope'), 'x.png') }, visitor.headers))),
    )
    expect(answer.status).toBe(415)
    expect(answer.body).toEqual({
      error: 'Invalid file type. Upload a PNG, JPG or TIFF image.',
      detail: 'Invalid file type. Upload a PNG, JPG or TIFF image.',
      remaining: 5,
      gfpgan_available: expect.any(Boolean),
    })
  })
})

describe('result links for the caller that ran them (issue 35 item 7)', () => {
  const png = () => sharp({ create: { width: 2, height: 2, channels: 3, background: '#123456' } }).png().toBuffer()

  it('opens the result for the API key of the account that ran it, sent as Bearer or X-Api-Key', async () => {
    const owner = await userWithKey()
    const bytes = await png()
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'face-restored.png' })
    const ways: Record<string, string>[] = [{ authorization: `Bearer ${owner.key}` }, { 'x-api-key': owner.key }]
    for (const headers of ways) {
      const answer = await getLink(`/api/results/${id}`, { ...headers, 'x-facet-client-ip': uniqueAddress() })
      expect(answer.status).toBe(200)
      expect(Buffer.from(answer.body).equals(bytes)).toBe(true)
    }
    const stranger = await userWithKey()
    expect((await getLink(`/api/results/${id}`, { authorization: `Bearer ${stranger.key}` })).status).toBe(404)
  })

  it('a signed link opens the result for anyone until it expires; a forged or moved one never does', async () => {
    const owner = await newVisitor()
    const bytes = await png()
    const id = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'face-restored.png' })
    const other = await storeResult({ ownerAccountId: owner.accountId, bytes, contentType: 'image/png', filename: 'other.png' })
    const now = new Date()
    const link = signedResultUrl(id, now)
    const [, , expires] = SIGNED_RESULT_URL.exec(link)!
    expect(Number(expires)).toBe(Math.floor(now.getTime() / 1000) + RESULT_LINK_TTL_SECONDS)

    const opened = await getLink(link)
    expect(opened.status).toBe(200)
    expect(Buffer.from(opened.body).equals(bytes)).toBe(true)
    expect((await getLink(`${link}&download=1`)).headers.get('content-disposition')).toMatch(/^attachment; filename="face-restored.png"/)

    // The same signature on another result, a later expiry, a changed signature, half a link: refused.
    expect((await getLink(link.replace(id, other))).status).toBe(404)
    expect((await getLink(link.replace(`expires=${expires}`, `expires=${Number(expires) + 3600}`))).status).toBe(404)
    const signature = new URL(link, BASE).searchParams.get('signature')!
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)
    expect((await getLink(link.replace(signature, flipped))).status).toBe(404)
    expect((await getLink(`/api/results/${id}?signature=${signature}`)).status).toBe(404)

    // Past its expiry: 410 saying so; the owner's own cookie still opens it.
    const stale = signedResultUrl(id, new Date(now.getTime() - (RESULT_LINK_TTL_SECONDS + 1) * 1000))
    const expired = await getLink(stale)
    expect(expired.status).toBe(410)
    expect(expired.body.error).toMatch(/^This link has expired/)
    expect((await getLink(stale, owner.headers)).status).toBe(200)
  })

  it('a signed link does not outlive its result', async () => {
    const owner = await newVisitor()
    const old = await storeResult({
      ownerAccountId: owner.accountId,
      bytes: await png(),
      contentType: 'image/png',
      filename: 'old.png',
      now: new Date(Date.now() - 25 * 3600_000),
    })
    expect((await getLink(signedResultUrl(old))).status).toBe(404)
  })
})
