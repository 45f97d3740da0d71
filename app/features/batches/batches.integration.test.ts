// Batches through their endpoints on a real database and real workers: a batch of 10 with one
// broken file (9 charged, 1 refunded, the zip holds 9 images and errors.json, batch.completed
// emitted once), a zip upload (folders and hidden files skipped and listed, path names ignored; a test
// key charges nothing), zip-bomb limits, more files than the limit refused (never cut), owner-only reads, and the balance check before anything runs.
import sharp from 'sharp'
import yauzl from 'yauzl'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { toolCost } from '~/features/tools/costs.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { createEndpoint } from '~/features/webhooks/endpoints.server'
import { action as postBatch } from '~/routes/api.batches._index'
import { loader as getBatch } from '~/routes/api.batches.$id'
import { loader as getDownload } from '~/routes/api.batches.$id.download'
import { fileOf, fixture, newVisitor, pngWithUnknownFilter } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { readZip, zipOf } from '../../../tests/support/zip'

beforeAll(() => {
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
})

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

interface Caller {
  headers: Record<string, string>
  accountId: string
}

async function user(environment?: 'live' | 'test'): Promise<Caller & { keyId: string | null }> {
  const { user, token } = await createVerifiedUser()
  const accountId = await ensureUserAccount(user.id)
  await createEndpoint(accountId, { url: 'http://127.0.0.1:9/hook', events: ['batch.completed'] })
  if (!environment) return { accountId, keyId: null, headers: { authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() } }
  const made = await createApiKey(user.id, { name: environment, environment })
  if (!made.ok) throw new Error('no key')
  return { accountId, keyId: made.key.id, headers: { authorization: `Bearer ${made.key.key}`, 'x-facet-client-ip': uniqueAddress() } }
}

/** A small photo (quick to run), each one a little different. */
async function photo(i: number): Promise<Buffer> {
  return sharp(fixture('photos/noface-rocket.jpg')).resize(160 + i, 107).jpeg().toBuffer()
}
const undecodable = () => pngWithUnknownFilter()

async function post(caller: Caller, fields: Array<[string, string | Blob]>) {
  const form = new FormData()
  for (const [name, value] of fields) form.append(name, value)
  return readResult(await postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers: caller.headers }))))
}

async function batchOf(caller: Caller | null, id: string) {
  return readResult(await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers: caller?.headers ?? {} }), { id })))
}

async function ended(caller: Caller, id: string) {
  let seen: any
  await vi.waitFor(
    async () => {
      seen = (await batchOf(caller, id)).body
      expect(seen.status).toBe('completed')
    },
    { timeout: 60_000, interval: 100 },
  )
  return seen
}


async function ledger(accountId: string) {
  return getDb().selectFrom('credit_transactions').select(['kind', 'delta']).where('account_id', '=', accountId).where('kind', 'in', ['consume', 'adjustment']).execute()
}

async function completedEvents(accountId: string) {
  const rows = await getDb()
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.event_type', 'd.payload'])
    .where('e.account_id', '=', accountId)
    .execute()
  return rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload))
}

describe('a batch of 10 with one broken file', () => {
  it('charges 9, refunds 1, zips 9 images and errors.json, and tells its owner only', async () => {
    const owner = await user()
    const fields: Array<[string, string | Blob]> = [['tool', 'background-remover']]
    for (let i = 0; i < 9; i++) fields.push(['image', fileOf(await photo(i), i === 8 ? 'shot-0.jpg' : `shot-${i}.jpg`, 'image/jpeg')])
    fields.push(['image', fileOf(undecodable(), 'broken.png', 'image/png')])
    const accepted = await post(owner, fields)
    expect(accepted.status).toBe(202)
    expect(accepted.body).toEqual({ id: expect.any(String), url: `/api/batches/${accepted.body.id}/`, total: 10, skipped: [] })
    expect(accepted.headers.get('X-Credits-Charged')).toBe('0')
    const { id } = accepted.body

    const batch = await ended(owner, id)
    expect(batch).toMatchObject({ id, tool: 'background-remover', status: 'completed', total: 10, done: 9, failed: 1, no_face: 0 })
    expect(batch.items).toHaveLength(10)
    const resultId = batch.items[0].result_url.split('/').pop()
    expect(batch.items[0]).toEqual({
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'shot-0.jpg',
      status: 'succeeded',
      state: 'done',
      status_text: 'Done',
      progress: 100,
      credits_charged: 1,
      result_url: `/api/results/${resultId}`,
      thumbnail_url: `/api/results/${resultId}/thumbnail`,
      error: null,
    })
    expect(batch.items[9]).toMatchObject({ name: 'broken.png', status: 'failed', state: 'failed', status_text: expect.stringMatching(/^Failed: .*damaged or truncated/), credits_charged: 0, result_url: null, thumbnail_url: null, error: expect.stringMatching(/damaged or truncated/) })

    const rows = await ledger(owner.accountId)
    expect(rows.filter((r) => r.kind === 'consume')).toHaveLength(10)
    expect(rows.filter((r) => r.kind === 'adjustment')).toEqual([{ kind: 'adjustment', delta: 1 }])
    expect(rows.reduce((sum, r) => sum + r.delta, 0)).toBe(-9)

    const download = await readResult(await getDownload(routeArgs(new Request(`${BASE}/api/batches/${id}/download/`, { headers: owner.headers }), { id })))
    expect(download.status).toBe(200)
    expect(download.headers.get('Content-Type')).toBe('application/zip')
    const files = await readZip(download.body)
    const names = [...files.keys()].sort()
    expect(names).toHaveLength(11)
    expect(names).toContain('errors.json')
    expect(names).toContain('manifest.json')
    // Two files were sent as shot-0.jpg: both results are kept, under distinct names.
    expect(names).toContain('shot-0.png')
    expect(names).toContain('shot-0 (2).png')
    for (const name of names.filter((n) => !n.endsWith('.json'))) expect((await sharp(files.get(name)!).metadata()).format).toBe('png')
    const manifest = JSON.parse(files.get('manifest.json')!.toString())
    expect(manifest).toHaveLength(10)
    expect(manifest[0]).toEqual({ name: 'shot-0.jpg', file: 'shot-0.png', renamed: false, state: 'done', status_text: 'Done', credits_charged: 1, error: null })
    expect(manifest[8]).toMatchObject({ name: 'shot-0.jpg', file: 'shot-0 (2).png', renamed: true, state: 'done' })
    expect(manifest[9]).toMatchObject({ name: 'broken.png', file: null, state: 'failed', credits_charged: 0, error: expect.stringMatching(/damaged or truncated/) })
    // Every result in the zip is named by the manifest.
    expect(manifest.map((m: any) => m.file).filter(Boolean).sort()).toEqual(names.filter((n) => !n.endsWith('.json')))
    expect(JSON.parse(files.get('errors.json')!.toString())).toEqual([{ name: 'broken.png', error: expect.stringMatching(/damaged or truncated/) }])

    const events = await completedEvents(owner.accountId)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: 'batch.completed', data: { id, total: 10, done: 9, failed: 1, credits_charged: 9 } })

    const stranger = await user()
    expect((await batchOf(stranger, id)).status).toBe(404)
    expect((await batchOf(null, id)).status).toBe(404)
    expect((await readResult(await getDownload(routeArgs(new Request(`${BASE}/api/batches/${id}/download/`, { headers: stranger.headers }), { id })))).status).toBe(404)
    expect((await batchOf(owner, 'not-a-batch')).status).toBe(404)
  })
})

describe('a face-blur batch with a photo that has no face', () => {
  it('says "No face found (not charged)" for it in its items, manifest.json and errors.json, and keeps its image in the zip', async () => {
    const owner = await user()
    const accepted = await post(owner, [
      ['tool', 'face-blurrer'],
      ['blur', '32'],
      ['image', fileOf(fixture('photos/portrait-astronaut.png'), 'astronaut.png', 'image/png')],
      ['image', fileOf(fixture('photos/noface-coffee.png'), 'coffee.png', 'image/png')],
    ])
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const { id } = accepted.body
    const batch = await ended(owner, id)
    const cost = toolCost('face-blurrer')
    expect(batch).toMatchObject({ status: 'completed', done: 2, failed: 0, no_face: 1 })
    expect(batch.items.map((i: any) => [i.name, i.status, i.state, i.status_text, i.credits_charged])).toEqual([
      ['astronaut.png', 'succeeded', 'done', 'Done', cost],
      ['coffee.png', 'succeeded', 'no_face', 'No face found (not charged)', 0],
    ])
    expect(batch.items[1].thumbnail_url).toMatch(/^\/api\/results\/[0-9a-f-]{36}\/thumbnail$/)

    const download = await readResult(await getDownload(routeArgs(new Request(`${BASE}/api/batches/${id}/download/`, { headers: owner.headers }), { id })))
    const files = await readZip(download.body)
    expect([...files.keys()]).toEqual(['manifest.json', 'errors.json', 'astronaut.png', 'coffee.png'])
    expect(JSON.parse(files.get('errors.json')!.toString())).toEqual([{ name: 'coffee.png', error: 'No face found (not charged)' }])
    expect(JSON.parse(files.get('manifest.json')!.toString())).toEqual([
      { name: 'astronaut.png', file: 'astronaut.png', renamed: false, state: 'done', status_text: 'Done', credits_charged: cost, error: null },
      { name: 'coffee.png', file: 'coffee.png', renamed: false, state: 'no_face', status_text: 'No face found (not charged)', credits_charged: 0, error: null },
    ])
  })
})

describe('a zip upload', () => {
  it('runs the images in it under their base names, skipping folders and hidden files; a test key charges nothing', async () => {
    const caller = await user('test')
    const zip = await zipOf([
      { name: 'pics/' },
      { name: 'pics/a.jpg', bytes: await photo(1) },
      { name: 'deep/er/b.jpg', bytes: await photo(2) },
      { name: '.DS_Store', bytes: Buffer.from('x') },
      { name: '__MACOSX/pics/._a.jpg', bytes: Buffer.from('x') },
    ])
    const accepted = await post(caller, [['tool', 'background-remover'], ['image', fileOf(zip, 'batch.zip', 'application/zip')]])
    expect(accepted.status).toBe(202)
    expect(accepted.body.total).toBe(2)
    // Nothing is left out without a word: the answer (and the batch) list what was skipped, and why.
    const skipped = [
      { name: 'pics/', reason: 'folder' },
      { name: '.DS_Store', reason: 'hidden' },
      { name: '__MACOSX/pics/._a.jpg', reason: 'hidden' },
    ]
    expect(accepted.body.skipped).toEqual(skipped)
    const batch = await ended(caller, accepted.body.id)
    expect(batch.skipped).toEqual(skipped)
    expect(batch.items.map((i: any) => [i.name, i.status])).toEqual([['a.jpg', 'succeeded'], ['b.jpg', 'succeeded']])
    expect(await ledger(caller.accountId)).toEqual([])
  })

  it('refuses a zip bomb by its sizes, and too many entries, before running anything', async () => {
    const caller = await user()
    const big = await zipOf([{ name: 'huge.png', bytes: Buffer.alloc(60 * 1024 * 1024) }])
    expect(big.byteLength).toBeLessThan(1024 * 1024)
    const refused = await post(caller, [['tool', 'background-remover'], ['image', fileOf(big, 'bomb.zip')]])
    expect(refused.status).toBe(413)
    expect(refused.body.error).toMatch(/too large once unzipped/)
    const many = await zipOf(Array.from({ length: 101 }, (_, i) => ({ name: `${i}.jpg`, bytes: Buffer.from('x') })))
    const tooMany = await post(caller, [['tool', 'background-remover'], ['image', fileOf(many, 'many.zip')]])
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.error).toBe('A batch takes at most 100 files.')
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', caller.accountId).execute()).toEqual([])
  })
})

describe('more files than a batch takes', () => {
  const MANY = 'A batch takes at most 100 files.'
  async function noBatchOf(caller: Caller) {
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', caller.accountId).execute()).toEqual([])
  }

  it.each([101, 102])('refuses %i files with 400 naming the limit (none dropped, nothing queued)', async (count) => {
    const caller = await user()
    const one = await photo(0)
    const fields: Array<[string, string | Blob]> = [['tool', 'background-remover']]
    for (let i = 0; i < count; i++) fields.push(['image', fileOf(one, `p${i}.jpg`, 'image/jpeg')])
    const refused = await post(caller, fields)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe(MANY)
    await noBatchOf(caller)
  })

  it('refuses a zip of 101 images, and takes one of 100 entries', async () => {
    const caller = await user('test')
    const one = await photo(0)
    const refused = await post(caller, [['tool', 'background-remover'], ['image', fileOf(await zipOf(Array.from({ length: 101 }, (_, i) => ({ name: `p${i}.jpg`, bytes: one }))), 'many.zip')]])
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe(MANY)
    await noBatchOf(caller)
    // 100 entries that are not images: the batch takes them all (each fails at once, unpaid: nothing to run here).
    const hundred = await zipOf(Array.from({ length: 100 }, (_, i) => ({ name: `n${i}.jpg`, bytes: Buffer.from('not an image') })))
    const accepted = await post(caller, [['tool', 'background-remover'], ['image', fileOf(hundred, 'hundred.zip')]])
    expect(accepted.status).toBe(202)
    expect(accepted.body).toMatchObject({ total: 100, skipped: [] })
    expect(await ended(caller, accepted.body.id)).toMatchObject({ total: 100, failed: 100 })
  })

  it("refuses files sent in another tool's file field instead of leaving them out", async () => {
    const caller = await user()
    const refused = await post(caller, [
      ['tool', 'background-remover'],
      ['image', fileOf(await photo(0), 'a.jpg', 'image/jpeg')],
      ['svg', fileOf(fixture('svg/tango-user-home.svg'), 'home.svg', 'image/svg+xml')],
    ])
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('The Background remover takes its files in the "image" field; 1 file was sent in "svg". Send every file in "image".')
    await noBatchOf(caller)
  })
})

describe('the balance check', () => {
  it('refuses a batch the balance cannot pay in full, saying how many files it covers, before anything runs', async () => {
    const visitor = await newVisitor() // 5 credits
    const fields: Array<[string, string | Blob]> = [['tool', 'background-remover']]
    for (let i = 0; i < 7; i++) fields.push(['image', fileOf(await photo(i), `p${i}.jpg`, 'image/jpeg')])
    const refused = await post(visitor, fields)
    expect(refused.status).toBe(402)
    expect(refused.body.error).toBe('Not enough credits: this batch of 7 files costs 7 credits and the balance of 5 covers 5 of them.')
    expect(await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', visitor.accountId).execute()).toEqual([])
    expect(await ledger(visitor.accountId)).toEqual([])
  })

  it('refuses an unknown tool and an empty batch with their messages', async () => {
    const caller = await user()
    expect((await post(caller, [['tool', 'nope'], ['image', fileOf(await photo(0), 'a.jpg')]])).body.error).toMatch(/^tool must be one of/)
    const empty = await post(caller, [['tool', 'background-remover']])
    expect(empty.status).toBe(400)
    expect(empty.body.error).toMatch(/Choose the files of the batch/)
  })
})
