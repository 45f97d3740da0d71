// The encrypted results store and GET /api/results/<id>.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { readResult as readStored, storeResult, sweepExpiredResults } from '~/features/tools/results.server'
import { action as restoreAction } from '~/routes/api.face-retouch.restore'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, fixture, newUser, newVisitor, toolRequest, type TestCaller } from '../../../tests/support/tools'

const getResult = async (id: string, caller: TestCaller | null, query = '') =>
  readResult(
    await resultLoader(routeArgs(new Request(`${BASE}/api/results/${id}${query}`, { headers: caller?.headers ?? {} }), { id })),
  )

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
  it('answers JSON with restored_url (readable by its owner only) and gfpgan_available; charges two credits', async () => {
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
      restored_url: expect.stringMatching(/^\/api\/results\/[0-9a-f-]{36}$/),
      gfpgan_available: expect.any(Boolean),
      note: expect.stringMatching(engine),
    })
    expect(answer.headers.get('X-Facet-Note')).toBe(answer.body.note)
    expect(answer.headers.get('X-Credits-Remaining')).toBe(String(balance - 2))
    const id = answer.body.restored_url.split('/').pop()
    const image = await getResult(id, user)
    expect(image.status).toBe(200)
    // At 2× the input, as GFPGAN's --upscale 2.
    expect(await sharp(Buffer.from(image.body)).metadata()).toMatchObject({ format: 'png', width: 128, height: 128 })
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
    const image = await getResult(answer.body.restored_url.split('/').pop(), visitor)
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
