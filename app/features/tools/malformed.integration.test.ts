// The malformed-input sweep (issue 34 item 7, decision 172): every file of the generated corpus
// (tests/support/malformed-corpus.ts) through the five tools' /api routes and the remove.bg-compatible
// endpoint. Every answer is a correct result (200, an image of the right type and a sensible size) or a
// 4xx with a message; never a 5xx; a refusal or failure charges nothing (balance and ledger agree and
// are unchanged). Heavy: tiny pictures only, one file for the whole sweep.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount, grant } from '~/features/credits/ledger.server'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { action as restoreAction } from '~/routes/api.face-retouch.restore'
import { action as enhanceAction } from '~/routes/api.image-scaler.scale'
import { action as removeAction } from '~/routes/api.remove-bg'
import * as batchById from '~/routes/api.batches.$id'
import * as batches from '~/routes/api.batches._index'
import * as enhanceRoute from '~/routes/api.image-scaler.scale'
import { action as svgAction } from '~/routes/api.svg2image.convert'
import { getDb } from '~/db/db.server'
import { action as removePageAction, loader as removePageLoader } from '~/routes/tools.background-remover'
import { action as blurPageAction, loader as blurPageLoader } from '~/routes/tools.face-blurrer'
import { action as restorePageAction, loader as restorePageLoader } from '~/routes/tools.face-restorer'
import { action as enhancePageAction, loader as enhancePageLoader } from '~/routes/tools.image-enhancer'
import { action as removeBgCompatAction } from '~/routes/api.v1[.]0.removebg'
import { rasterCorpus, svgCorpus, type CorpusFile } from '../../../tests/support/malformed-corpus'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { startStudio, type RunningStudio } from '../../../tests/support/studio-server'
import { zipOf } from '../../../tests/support/zip'
import { fileOf, fromEmptyQueueAndFreeSlot, ledgerSum, newUser, toolRequest } from '../../../tests/support/tools'

type Action = typeof blurAction
const ROUTES: Record<ToolSlug, { action: Action; path: string }> = {
  'face-blurrer': { action: blurAction, path: '/api/face-blur/blur/' },
  'face-restorer': { action: restoreAction, path: '/api/face-retouch/restore/' },
  'image-enhancer': { action: enhanceAction, path: '/api/image-scaler/scale/' },
  'background-remover': { action: removeAction, path: '/api/remove-bg/' },
  'svg-converter': { action: svgAction, path: '/api/svg2image/convert/' },
}
const MIME: Record<CorpusFile['format'], string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  text: 'text/plain',
}

/** The refusals that blame the file itself: owed to no sound file. */
const FILE_REFUSAL = /could not be (read|decoded)|damaged|truncated|Invalid file type|too large|no size/i
/** What each tool needs besides its file (the blurrer's blur is required, spec §7). */
const OPTIONS: Partial<Record<ToolSlug, Record<string, string>>> = { 'face-blurrer': { blur: '32' }, 'svg-converter': { format: 'png', scale: '1' } }

let raster: CorpusFile[] = []
beforeAll(async () => {
  raster = await rasterCorpus()
  await fromEmptyQueueAndFreeSlot()
}, 120_000)

/** A user with credits to spare, so a refusal is never the balance's doing. */
async function funded() {
  const user = await newUser()
  await grant({ accountId: user.accountId, amount: 50, kind: 'adjustment', description: 'malformed sweep' })
  return user
}

interface Answer {
  status: number
  headers: Headers
  body: any
}

/** The rule every answer obeys; returns what was owed for the record. */
async function expectSound(answer: Answer, file: CorpusFile, owed: CorpusFile['expect'], accountId: string, before: { balance: number; sum: number }) {
  const where = `${file.label}: ${answer.status} ${answer.body instanceof ArrayBuffer ? `${answer.body.byteLength} bytes` : JSON.stringify(answer.body)}`
  expect(answer.status, where).toBeLessThan(500)
  const after = await ledgerSum(accountId)
  expect(after.balance, `balance equals its ledger after ${file.label}`).toBe(after.sum)
  if (answer.status >= 400) {
    const message = answer.body?.error ?? answer.body?.errors?.[0]?.title
    expect(typeof message === 'string' && message.length > 0, where).toBe(true)
    // A sound file may still be refused for what it shows (no face, no foreground), never as unreadable.
    if (owed === 'ok') expect(message, where).not.toMatch(FILE_REFUSAL)
    expect(after.balance, `a refusal charged nothing (${file.label})`).toBe(before.balance)
    return
  }
  expect(owed, where).not.toBe('refused')
  expect(answer.status, where).toBe(200)
  // The face restorer answers with the result's address (spec §7), the others with the image.
  if (answer.headers.get('content-type')?.includes('json')) return expect(answer.body?.restored_url, where).toMatch(/^\/api\/results\//)
  expect(answer.headers.get('content-type') ?? '', where).toMatch(/^image\/(png|jpeg|webp)/)
  const meta = await sharp(Buffer.from(answer.body as ArrayBuffer)).metadata()
  expect(meta.width! > 0 && meta.width! <= 24 * 8 && meta.height! > 0 && meta.height! <= 24 * 8, `${file.label}: ${meta.width}×${meta.height}`).toBe(true)
}

const owedBy = (file: CorpusFile, tool: ToolSlug): CorpusFile['expect'] =>
  TOOLS[tool].acceptedTypes.includes(MIME[file.format]) ? file.expect : 'refused'

async function sweep(tool: ToolSlug, files: CorpusFile[]) {
  const user = await funded()
  for (const file of files) {
    const before = await ledgerSum(user.accountId)
    const { action, path } = ROUTES[tool]
    const request = toolRequest(path, { ...OPTIONS[tool], [TOOLS[tool].fileField]: fileOf(file.bytes, file.name, MIME[file.format]) }, user.headers)
    const answer = await readResult(await action(routeArgs(request)))
    await expectSound(answer, file, owedBy(file, tool), user.accountId, before)
  }
}

describe('the raster corpus through each raster tool\'s /api route', () => {
  // Every file through the face blurrer (its model is the cheapest); through the other three, every
  // file a tool must refuse and a sample of those it must run (the model time is the cost).
  it('face blurrer: every file', async () => {
    await sweep('face-blurrer', raster)
  }, 600_000)

  for (const tool of ['image-enhancer', 'face-restorer', 'background-remover'] as const) {
    it(`${tool}: every file it must refuse or may refuse, and a sample it must run`, async () => {
      const sample = new Set(['CMYK JPEG', '16-bit PNG', 'grey + alpha PNG', 'palette PNG with tRNS', 'multi-page TIFF', 'APNG', 'EXIF orientation 6'])
      await sweep(tool, raster.filter((f) => owedBy(f, tool) !== 'ok' || sample.has(f.label)))
    }, 600_000)
  }

  it('every EXIF orientation comes out upright (the red corner stays top-left)', async () => {
    const user = await funded()
    for (const file of raster.filter((f) => f.label.startsWith('EXIF orientation'))) {
      const request = toolRequest(ROUTES['face-blurrer'].path, { blur: '32', image: fileOf(file.bytes, file.name, 'image/jpeg') }, user.headers)
      const answer = await readResult(await blurAction(routeArgs(request)))
      expect(answer.status, file.label).toBe(200)
      const { data, info } = await sharp(Buffer.from(answer.body as ArrayBuffer)).removeAlpha().raw().toBuffer({ resolveWithObject: true })
      expect([info.width, info.height], file.label).toEqual([24, 16])
      const red = (x: number, y: number) => data[(y * info.width + x) * 3]! > 200 && data[(y * info.width + x) * 3 + 1]! < 80
      expect(red(1, 1) && !red(22, 14) && !red(22, 1) && !red(1, 14), file.label).toBe(true)
    }
  }, 300_000)
})

describe('the SVG corpus through the SVG converter', () => {
  it('renders or refuses each, never requesting the loopback address an SVG names', async () => {
    let hits = 0
    const watched = http.createServer((_req, res) => {
      hits++
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => watched.listen(0, '127.0.0.1', resolve))
    const user = await funded()
    for (const file of svgCorpus(`http://127.0.0.1:${(watched.address() as AddressInfo).port}`)) {
      const before = await ledgerSum(user.accountId)
      const request = toolRequest(ROUTES['svg-converter'].path, { svg: fileOf(file.bytes, file.name, 'image/svg+xml'), format: 'png', scale: '1' }, user.headers)
      const answer = await readResult(await svgAction(routeArgs(request)))
      const where = `${file.label}: ${answer.status} ${JSON.stringify(answer.status >= 400 ? answer.body : '')}`
      expect(answer.status, where).toBeLessThan(500)
      const after = await ledgerSum(user.accountId)
      expect(after.balance).toBe(after.sum)
      if (answer.status >= 400) {
        expect(file.expect, where).not.toBe('ok')
        expect(answer.body.error, file.label).toEqual(expect.any(String))
        expect(after.balance).toBe(before.balance)
      } else {
        expect(file.expect, file.label).not.toBe('refused')
        const meta = await sharp(Buffer.from(answer.body as ArrayBuffer)).metadata()
        expect(meta.format, file.label).toBe('png')
        expect(meta.width! * meta.height!, file.label).toBeLessThanOrEqual(40_000_000)
      }
    }
    await new Promise((resolve) => watched.close(resolve))
    expect(hits).toBe(0)
  }, 300_000)
})

describe('the raster corpus through POST /api/v1.0/removebg', () => {
  it('answers each with an image or a 4xx in remove.bg\'s error shape, charging nothing for a refusal', async () => {
    const { user } = await createVerifiedUser()
    const made = await createApiKey(user.id, { name: 'sweep', environment: 'live' })
    if (!made.ok) throw new Error('no key')
    const accountId = await ensureUserAccount(user.id)
    await grant({ accountId, amount: 50, kind: 'adjustment', description: 'malformed sweep' })
    const sample = new Set(['CMYK JPEG', 'palette PNG with tRNS', 'EXIF orientation 8'])
    for (const file of raster.filter((f) => owedBy(f, 'background-remover') !== 'ok' || sample.has(f.label))) {
      const before = await ledgerSum(accountId)
      const form = new FormData()
      form.append('image_file', fileOf(file.bytes, file.name, MIME[file.format]))
      form.append('size', 'preview')
      const request = new Request(BASE + '/api/v1.0/removebg', { method: 'POST', body: form, headers: { 'x-api-key': made.key.key, 'x-facet-client-ip': uniqueAddress() } })
      const answer = await readResult(await removeBgCompatAction(routeArgs(request)))
      await expectSound(answer, file, owedBy(file, 'background-remover'), accountId, before)
    }
  }, 600_000)
})

describe('the corpus as batches through the real server', () => {
  let studio: RunningStudio
  beforeAll(async () => {
    studio = await startStudio({ 'api/batches': batches, 'api/batches/:id': batchById, 'api/image-scaler/scale': enhanceRoute })
  })
  afterAll(() => studio.close())

  const picks = ['CMYK JPEG', '16-bit PNG', 'multi-page TIFF', 'truncated PNG', 'a text file named .png', 'PNG header claiming 60000×60000', 'JPEG with a 1 MB ICC profile']

  for (const shape of ['multi-file', 'zip'] as const) {
    it(`a ${shape} batch of sound and broken files: the broken ones fail uncharged, the server keeps serving`, async () => {
      const user = await funded()
      const files = raster.filter((f) => picks.includes(f.label))
      const before = await ledgerSum(user.accountId)
      const form = new FormData()
      form.append('tool', 'image-enhancer')
      if (shape === 'zip') {
        const zip = await zipOf(files.map((f, i) => ({ name: `${i}-${f.name}`, bytes: f.bytes })))
        form.append('image', fileOf(zip, 'corpus.zip', 'application/zip'))
      } else for (const f of files) form.append('image', fileOf(f.bytes, f.name, MIME[f.format]))
      const accepted = await fetch(`${studio.url}/api/batches/`, { method: 'POST', body: form, headers: user.headers })
      const body = (await accepted.json()) as any
      expect(accepted.status, JSON.stringify(body)).toBe(202)
      let batch: any
      await vi.waitFor(
        async () => {
          batch = await (await fetch(`${studio.url}/api/batches/${body.id}/`, { headers: user.headers })).json()
          expect(batch.status).toBe('completed')
        },
        { timeout: 300_000, interval: 250 },
      )
      for (const item of batch.items as any[]) {
        const file = files.find((f) => item.name.endsWith(f.name))!
        if (file.expect === 'refused') expect(item, item.name).toMatchObject({ status: 'failed', credits_charged: 0, error: expect.any(String) })
        if (file.expect === 'ok') expect(item.status, `${item.name}: ${item.error}`).toBe('succeeded')
      }
      const after = await ledgerSum(user.accountId)
      expect(after.balance).toBe(after.sum)
      expect(after.balance, JSON.stringify(batch.items)).toBe(before.balance - (batch.items as any[]).reduce((sum: number, item: any) => sum + item.credits_charged, 0))
      // Still serving: a sound run over HTTP right after.
      const again = new FormData()
      again.append('image', fileOf(raster.find((f) => f.label === 'grey PNG')!.bytes, 'grey.png', 'image/png'))
      const run = await fetch(`${studio.url}/api/image-scaler/scale/`, { method: 'POST', body: again, headers: user.headers })
      expect(run.status).toBe(200)
    }, 600_000)
  }
})

/** The tool pages' own form actions and loaders (the flow without JavaScript). */
const PAGES: Record<Exclude<ToolSlug, 'svg-converter'>, { action: typeof blurPageAction; loader: typeof blurPageLoader; path: string }> = {
  'face-blurrer': { action: blurPageAction, loader: blurPageLoader, path: '/tools/face-blurrer' },
  'face-restorer': { action: restorePageAction, loader: restorePageLoader, path: '/tools/face-restorer' },
  'image-enhancer': { action: enhancePageAction, loader: enhancePageLoader, path: '/tools/image-enhancer' },
  'background-remover': { action: removePageAction, loader: removePageLoader, path: '/tools/background-remover' },
}
/** Formats whose structure the door walks to the end (file-complete.server.ts): a broken one never reaches a run. */
const WALKED = new Set<CorpusFile['format']>(['png', 'jpeg', 'webp', 'tiff'])

/** Rows in an account's ledger: a refusal at the door writes none (a charge and its refund would be two). */
async function ledgerRows(accountId: string): Promise<number> {
  const row = await getDb().selectFrom('credit_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()
  return Number(row.n)
}

describe('the refused raster files through each tool page\'s form action (no JavaScript)', () => {
  for (const [tool, page] of Object.entries(PAGES) as Array<[keyof typeof PAGES, (typeof PAGES)[keyof typeof PAGES]]>) {
    it(`${tool} page: each is refused with a message, on the page or by its run, under 500 and uncharged`, async () => {
      const user = await funded()
      const queued: string[] = []
      for (const file of raster.filter((f) => owedBy(f, tool) === 'refused')) {
        const before = await ledgerSum(user.accountId)
        const rowsBefore = await ledgerRows(user.accountId)
        const request = toolRequest(page.path, { ...OPTIONS[tool], [TOOLS[tool].fileField]: fileOf(file.bytes, file.name, MIME[file.format]) }, user.headers)
        const answer = await readResult(await page.action(routeArgs(request)))
        const where = `${file.label}: ${answer.status} ${JSON.stringify(answer.body)}`
        if (answer.status === 302) {
          // Queued: its header and structure were sound (a truncated PNG, JPEG or WebP never gets this far).
          // The run itself must fail, say why, and refund.
          expect(file.label.startsWith('truncated') && WALKED.has(file.format), `${where}: a truncated ${file.format} passed the door`).toBe(false)
          queued.push(file.label)
          const location = new URL(answer.headers.get('location')!, BASE)
          let shown: any
          await vi.waitFor(
            async () => {
              shown = await page.loader(routeArgs(new Request(location, { headers: user.headers })))
              expect(['failed', 'succeeded']).toContain(shown.job?.status)
            },
            { timeout: 120_000, interval: 200 },
          )
          expect(shown.job.status, where).toBe('failed')
          expect(shown.pageResult?.error, where).toEqual(expect.any(String))
          expect((await ledgerSum(user.accountId)).balance, where).toBe(before.balance)
          continue
        }
        expect(answer.status, where).toBeGreaterThanOrEqual(400)
        expect(answer.status, where).toBeLessThan(500)
        expect(answer.body?.error ?? answer.body?.pageResult?.error, where).toEqual(expect.any(String))
        expect((await ledgerSum(user.accountId)).balance, where).toBe(before.balance)
        expect(await ledgerRows(user.accountId), `${where}: refused at the door, nothing written to the ledger`).toBe(rowsBefore)
      }
      console.log(`${tool} page: refused by their runs, after a sound header and structure: ${queued.join(', ') || 'none'}`)
      // Since the door inflates a PNG's pixels and walks a TIFF, every file of the corpus is refused there.
      expect(queued, 'refused by their runs instead of at the door').toEqual([])
    }, 300_000)
  }
})
