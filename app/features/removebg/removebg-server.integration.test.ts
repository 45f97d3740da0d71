// Issue 35, item 1, through the real server (server.ts's Express application and all its middleware,
// Remix's handler): the remove.bg-compatible endpoint takes real photos of 2 to 12 MB as image_file,
// image_file_b64 and image_url, as remove.bg does, and refuses one past the remover's 12 MB with 413;
// X-Api-Key is the key on the studio's own endpoints too, charged to the key's account, never a
// visitor's. The contract tests beside this file call the route directly; these would have seen the
// 1 MB body limit in front of it.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { resetConfigForTests } from '~/config.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { KEY_INVALID, KEY_SENT_TWICE } from '~/features/api-keys/messages'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { ensureUserAccount, getBalance, grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { fileTooLargeMessage } from '~/features/tools/upload.server'
import * as balanceRoute from '~/routes/api.credits.balance'
import * as removerRoute from '~/routes/api.remove-bg'
import * as removeBgRoute from '~/routes/api.v1[.]0.removebg'
import { photoOfSize } from '../../../tests/support/photo-sizes'
import { startStudio, type RunningStudio } from '../../../tests/support/studio-server'
import { fixture } from '../../../tests/support/tools'

const REMOVER = 'background-remover' as const
const LIMIT = TOOLS[REMOVER].maxMegabytes * MEGABYTE
let studio: RunningStudio
let photoHost: http.Server
let photoHostUrl = ''
/** Real photos (a fixture enlarged, with grain) of about 2, 6 and just under 12 MB, and one past it. */
const photos: Record<'2' | '6' | '12' | 'over', Buffer> = {} as never

beforeAll(async () => {
  // image_url fetches from the loopback photo host below.
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
  studio = await startStudio({ 'api/v1.0/removebg': removeBgRoute, 'api/remove-bg': removerRoute, 'api/credits/balance': balanceRoute })
  photos['2'] = await photoOfSize(2 * MEGABYTE)
  photos['6'] = await photoOfSize(6 * MEGABYTE)
  photos['12'] = await photoOfSize(LIMIT - 1024)
  photos.over = await photoOfSize(LIMIT + MEGABYTE)
  photoHost = http.createServer((req, res) => {
    const photo = photos[(req.url ?? '').slice(1).replace('.jpg', '') as keyof typeof photos]
    if (!photo) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) }).end(photo)
  })
  await new Promise<void>((resolve) => photoHost.listen(0, '127.0.0.1', resolve))
  photoHostUrl = `http://127.0.0.1:${(photoHost.address() as AddressInfo).port}`
})

afterAll(async () => {
  await studio.close()
  await new Promise((resolve) => photoHost.close(resolve))
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

async function keyedAccount() {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: 'server', environment: 'live' })
  if (!made.ok) throw new Error('no key')
  const accountId = await ensureUserAccount(user.id)
  await grant({ accountId, amount: 50, kind: 'adjustment', description: 'upload limit tests' })
  return { accountId, key: made.key.key, balance: await getBalance(accountId) }
}

function photoForm(field: string, photo: Buffer, fields: Record<string, string> = {}): FormData {
  const form = new FormData()
  form.append(field, new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'phone-photo.jpg')
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return form
}

const removeBg = (key: string, body: FormData | string, type?: string) =>
  fetch(`${studio.url}/api/v1.0/removebg`, { method: 'POST', headers: { 'X-Api-Key': key, ...(type ? { 'Content-Type': type } : {}) }, body })

/** A cutout as remove.bg answers it: a PNG of the photo's shape, one credit from the key's account. */
async function expectCutout(answer: Response, photo: Buffer, accountId: string, balanceBefore: number) {
  expect(answer.status, await answer.clone().text().catch(() => '')).toBe(200)
  expect(answer.headers.get('content-type')).toBe('image/png')
  expect(answer.headers.get('x-credits-charged')).toBe('1')
  const source = await sharp(photo).metadata()
  const cutout = await sharp(Buffer.from(await answer.arrayBuffer())).metadata()
  expect(cutout.hasAlpha).toBe(true)
  // preview: within 0.25 MP, the photo's proportions kept.
  expect(cutout.width! * cutout.height!).toBeLessThanOrEqual(250_000)
  expect(Math.abs(cutout.width! / cutout.height! - source.width! / source.height!)).toBeLessThan(0.01)
  expect(await getBalance(accountId)).toBe(balanceBefore - 1)
}

describe('POST /api/v1.0/removebg through the real server, with real photos', () => {
  it('takes image_file photos of 2, 6 and just under 12 MB', async () => {
    const who = await keyedAccount()
    let balance = who.balance
    for (const size of ['2', '6', '12'] as const) {
      expect(photos[size].length).toBeGreaterThan(Number(size) * MEGABYTE * 0.9)
      await expectCutout(await removeBg(who.key, photoForm('image_file', photos[size])), photos[size], who.accountId, balance)
      balance -= 1
    }
  })

  it('takes the 12 MB photo as image_file_b64 in a JSON body (about 16 MB of text)', async () => {
    const who = await keyedAccount()
    const body = JSON.stringify({ image_file_b64: photos['12'].toString('base64') })
    expect(body.length).toBeGreaterThan(15 * MEGABYTE)
    await expectCutout(await removeBg(who.key, body, 'application/json'), photos['12'], who.accountId, who.balance)
  })

  it('takes the 12 MB photo as image_url', async () => {
    const who = await keyedAccount()
    await expectCutout(await removeBg(who.key, JSON.stringify({ image_url: `${photoHostUrl}/12.jpg` }), 'application/json'), photos['12'], who.accountId, who.balance)
  })

  it('refuses a photo past 12 MB with 413 file_too_large, as a file, as base64 and by URL, charging nothing', async () => {
    const who = await keyedAccount()
    const answers = [
      await removeBg(who.key, photoForm('image_file', photos.over)),
      await removeBg(who.key, JSON.stringify({ image_file_b64: photos.over.toString('base64') }), 'application/json'),
      await removeBg(who.key, new URLSearchParams({ image_url: `${photoHostUrl}/over.jpg` }).toString(), 'application/x-www-form-urlencoded'),
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(413)
      const body = await answer.json()
      expect(body.errors[0].code).toBe('file_too_large')
      expect(body.errors[0].title).toContain(fileTooLargeMessage(REMOVER))
    }
    expect(await getBalance(who.accountId)).toBe(who.balance)
  })
})

describe('the remove.bg endpoint\'s key through the real server', () => {
  it('counts a key once per request and refuses a bad one in remove.bg\'s words (403 auth_failed), not the studio\'s', async () => {
    const who = await keyedAccount()
    const first = await removeBg(who.key, JSON.stringify({}), 'application/json')
    expect(first.status).toBe(400)
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-limit')) - 1)
    for (const headers of [{ 'X-Api-Key': `fs_live_${'A'.repeat(32)}` }, { Authorization: `Bearer fs_live_${'A'.repeat(32)}` }] as Array<Record<string, string>>) {
      const refused = await fetch(`${studio.url}/api/v1.0/removebg`, { method: 'POST', headers })
      expect(refused.status).toBe(403)
      expect((await refused.json()).errors[0].code).toBe('auth_failed')
    }
  })
})

describe('X-Api-Key on the studio\'s own endpoints', () => {
  it('runs POST /api/remove-bg/ as the key\'s account: charged there, rate-limited as the key, no visitor made', async () => {
    const who = await keyedAccount()
    const answer = await fetch(`${studio.url}/api/remove-bg/`, {
      method: 'POST',
      headers: { 'X-Api-Key': who.key },
      body: photoForm(TOOLS[REMOVER].fileField, fixture('photos/noface-rocket.jpg')),
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('x-credits-charged')).toBe('1')
    expect(answer.headers.get('x-credits-remaining')).toBe(String(who.balance - 1))
    expect(answer.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
    expect(answer.headers.get('set-cookie')).toBeNull()
    expect(await getBalance(who.accountId)).toBe(who.balance - 1)
    const balance = await fetch(`${studio.url}/api/credits/balance/`, { headers: { 'X-Api-Key': who.key } })
    expect((await balance.json()).balance).toBe(who.balance - 1)
  })

  it('refuses an unknown X-Api-Key with 401 instead of running as a visitor', async () => {
    const answer = await fetch(`${studio.url}/api/remove-bg/`, {
      method: 'POST',
      headers: { 'X-Api-Key': `fs_live_${'A'.repeat(32)}` },
      body: photoForm(TOOLS[REMOVER].fileField, fixture('photos/noface-rocket.jpg')),
    })
    expect(answer.status).toBe(401)
    expect((await answer.json()).error).toMatch(/malformed|not valid/)
    expect(answer.headers.get('set-cookie')).toBeNull()
  })

  it('refuses X-Api-Key beside another credential with 401 saying how to send it', async () => {
    const who = await keyedAccount()
    const answer = await fetch(`${studio.url}/api/credits/balance/`, { headers: { 'X-Api-Key': who.key, Authorization: 'Token something-else' } })
    expect(answer.status).toBe(401)
    expect((await answer.json()).error).toBe(KEY_SENT_TWICE)
    // The same key in both headers is one key.
    const same = await fetch(`${studio.url}/api/credits/balance/`, { headers: { 'X-Api-Key': who.key, Authorization: `Bearer ${who.key}` } })
    expect(same.status).toBe(200)
    expect(KEY_INVALID).not.toBe(KEY_SENT_TWICE)
  })
})
