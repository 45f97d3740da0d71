// The batch screen's loader and action (the page without JavaScript): the tool chosen by the
// address, a form with one tool's own fields posted to the same acceptBatch as the API, the
// redirect to ?batch=<id>, the batch drawn for its owner only, and the refusals drawn on the form.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action, loader } from '~/routes/tools.batch'
import { fileOf, fixture, newUser, newVisitor, type TestCaller } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import yazl from 'yazl'
import type { BatchPageData } from './page.server'
import { skippedSummary } from './ui/batch-status'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

async function page(caller: TestCaller | null, search = ''): Promise<BatchPageData> {
  return loader(routeArgs(new Request(`${BASE}/tools/batch${search}`, { headers: caller?.headers ?? {} })))
}

async function post(caller: TestCaller, fields: Array<[string, string | Blob]>, search = '') {
  const form = new FormData()
  for (const [name, value] of fields) form.append(name, value)
  return readResult(await action(routeArgs(new Request(`${BASE}/tools/batch${search}`, { method: 'POST', body: form, headers: caller.headers }))))
}

describe('the batch page loader', () => {
  it('takes the tool from the address (else the first), with its cost per file and the batch limits', async () => {
    const first = await page(null)
    expect(first).toMatchObject({ tool: 'background-remover', cost: 1, limits: { maxFiles: 100, maxMegabytes: 200 }, missingModels: [], batch: null, notFound: false })
    expect(await page(null, '?tool=face-restorer')).toMatchObject({ tool: 'face-restorer', cost: 2 })
    expect((await page(null, '?tool=nope')).tool).toBe('background-remover')
    expect(await page(null, '?batch=not-a-batch')).toMatchObject({ batch: null, notFound: true })
  })
})

describe('the batch page action (no JavaScript)', () => {
  it("runs SVGs with the converter's own fields, redirects to the batch, and shows it to its owner only", async () => {
    const owner = await newUser()
    const posted = await post(
      owner,
      [
        ['tool', 'svg-converter'],
        ['format', 'webp'],
        ['scale', '2'],
        ['background', '#ffffff'],
        ['svg', fileOf(fixture('svg/openclipart-stopwatch.svg'), 'stopwatch.svg', 'image/svg+xml')],
        ['svg', fileOf(fixture('svg/tango-user-home.svg'), 'home.svg', 'image/svg+xml')],
      ],
      '?tool=svg-converter',
    )
    expect(posted.status).toBe(303)
    const location = new URL(posted.headers.get('location')!, BASE)
    expect(location.pathname).toBe('/tools/batch')
    const id = location.searchParams.get('batch')!
    expect(id).toMatch(/^[0-9a-f-]{36}$/)

    let shown = await page(owner, location.search)
    expect(shown.tool).toBe('svg-converter')
    expect(shown.batch).toMatchObject({ id, tool: 'svg-converter', total: 2 })
    await vi.waitFor(
      async () => {
        shown = await page(owner, location.search)
        expect(shown.batch?.status).toBe('completed')
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(shown.batch).toMatchObject({ done: 2, failed: 0 })
    expect(shown.batch!.items.map((i) => [i.name, i.status, i.progress])).toEqual([
      ['stopwatch.svg', 'succeeded', 100],
      ['home.svg', 'succeeded', 100],
    ])
    // The options posted are the ones the jobs ran with.
    const jobs = await getDb().selectFrom('tool_jobs').select(['options', 'filename']).where('batch_id', '=', id).orderBy('batch_position').execute()
    expect(jobs.map((j) => (typeof j.options === 'string' ? JSON.parse(j.options) : j.options))).toEqual([
      { format: 'webp', scale: 2, background: '#ffffff' },
      { format: 'webp', scale: 2, background: '#ffffff' },
    ])
    expect(jobs.map((j) => j.filename)).toEqual(['stopwatch.webp', 'home.webp'])

    const stranger = await newUser()
    expect(await page(stranger, location.search)).toMatchObject({ batch: null, notFound: true, tool: 'background-remover' })
    expect(await page(null, location.search)).toMatchObject({ batch: null, notFound: true })
  })

  it('draws the refusals on the form: the balance (how many files it covers), a visitor converting SVGs, a bad option', async () => {
    const visitor = await newVisitor() // 5 credits
    const portrait = () => fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'face.jpg', 'image/jpeg')
    const unpaid = await post(visitor, [['tool', 'face-restorer'], ['image', portrait()], ['image', portrait()], ['image', portrait()]])
    expect(unpaid).toMatchObject({
      status: 402,
      body: { error: 'Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.' },
    })
    const svg = await post(visitor, [['tool', 'svg-converter'], ['format', 'png'], ['scale', '1'], ['svg', fileOf(fixture('svg/tango-user-home.svg'), 'home.svg')]])
    expect(svg.status).toBe(401)
    expect(svg.body.error).toMatch(/account/i)
    const blur = await post(visitor, [['tool', 'face-blurrer'], ['blur', '13'], ['image', portrait()]])
    expect(blur).toMatchObject({ status: 400, body: { error: 'blur must be a number from 12 to 60 in steps of 2.' } })
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', visitor.accountId).execute()).toEqual([])
  })

  it('refuses 101 files on the form, naming the limit, and creates nothing', async () => {
    const owner = await newUser()
    const one = fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
    const fields: Array<[string, string | Blob]> = [['tool', 'background-remover']]
    for (let i = 0; i < 101; i++) fields.push(['image', one])
    expect(await post(owner, fields)).toMatchObject({ status: 400, body: { error: 'A batch takes at most 100 files.' } })
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', owner.accountId).execute()).toEqual([])
  })

  it("shows the zip's skipped entries with the batch", async () => {
    const owner = await newUser()
    const zip = new yazl.ZipFile()
    zip.addBuffer(Buffer.from('not an image'), 'a.jpg')
    zip.addBuffer(Buffer.from('x'), '.DS_Store')
    zip.end()
    const bytes = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = []
      zip.outputStream.on('data', (c: Buffer) => chunks.push(c))
      zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    })
    const posted = await post(owner, [['tool', 'background-remover'], ['image', fileOf(bytes, 'photos.zip', 'application/zip')]])
    expect(posted.status).toBe(303)
    const shown = await page(owner, new URL(posted.headers.get('location')!, BASE).search)
    expect(shown.batch).toMatchObject({ total: 1, skipped: [{ name: '.DS_Store', reason: 'hidden' }] })
    expect(skippedSummary(shown.batch!.skipped)).toBe(
      'Skipped from the zip: 1 hidden file (such as __MACOSX/ or .DS_Store). They are not files of the batch and were not run.',
    )
  })
})
