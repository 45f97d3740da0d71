// Names that never break a batch (issue 34 item 4, decision 167): files sent under names some system
// allows (colons, backslashes, CON.jpg, control characters, NFD, 300 bytes, duplicates, "C:x.jpg",
// "..") run, and their download answers 200 with a valid zip whose entries are safe and unique and
// whose manifest maps each result back to the name as sent; the same through a zip upload.
import sharp from 'sharp'
import yauzl from 'yauzl'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as postBatch } from '~/routes/api.batches._index'
import { loader as getBatch } from '~/routes/api.batches.$id'
import { loader as getDownload } from '~/routes/api.batches.$id.download'
import { fileOf, fixture } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { readZip, zipOf } from '../../../tests/support/zip'
import { MAX_ENTRY_NAME_BYTES } from './entry-names'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

async function caller() {
  const { user, token } = await createVerifiedUser()
  await ensureUserAccount(user.id)
  return { authorization: `Token ${token}`, 'x-facet-client-ip': uniqueAddress() }
}

const photo = (i: number) => sharp(fixture('photos/noface-rocket.jpg')).resize(120 + i, 80).jpeg().toBuffer()

async function post(headers: Record<string, string>, files: Array<{ name: string; bytes: Buffer }>) {
  const form = new FormData()
  form.append('tool', 'background-remover')
  for (const file of files) form.append('image', fileOf(file.bytes, file.name, 'image/jpeg'))
  return readResult(await postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers }))))
}

async function download(headers: Record<string, string>, id: string) {
  await vi.waitFor(
    async () => {
      const batch = await readResult(await getBatch(routeArgs(new Request(`${BASE}/api/batches/${id}/`, { headers }), { id })))
      expect(batch.body.status).toBe('completed')
    },
    { timeout: 60_000, interval: 100 },
  )
  return readResult(await getDownload(routeArgs(new Request(`${BASE}/api/batches/${id}/download/`, { headers }), { id })))
}

const UNSAFE = /[<>:"/\\|?*\u0000-\u001f\u007f]|[. ]$|^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i

/** The download's checks: 200, valid zip, safe and unique names, manifest naming each result and what was renamed. */
async function expectSafeDownload(headers: Record<string, string>, id: string, sent: number) {
  const answer = await download(headers, id)
  expect(answer.status).toBe(200)
  const files = await readZip(answer.body, { strict: true })
  const names = [...files.keys()]
  for (const name of names) {
    expect(name, JSON.stringify(name)).not.toMatch(UNSAFE)
    expect(name.normalize('NFC')).toBe(name)
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_ENTRY_NAME_BYTES)
  }
  expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length)
  const manifest = JSON.parse(files.get('manifest.json')!.toString())
  expect(manifest).toHaveLength(sent)
  const results = names.filter((n) => n !== 'manifest.json' && n !== 'errors.json')
  expect(manifest.map((m: any) => m.file).sort()).toEqual([...results].sort())
  for (const result of results) expect((await sharp(files.get(result)!).metadata()).format).toBe('png')
  return manifest as Array<{ name: string; file: string; renamed: boolean; state: string }>
}

describe('a batch of files under hostile names', () => {
  it('runs them all and downloads a valid zip of safe, unique names, the manifest saying what was renamed', async () => {
    const headers = await caller()
    const long = `${'é'.repeat(149)}.jpg` // 302 bytes of UTF-8
    // Control characters cannot travel in a multipart header (busboy refuses the part): see the zip below.
    const sentNames = ['12:30:00 shot.jpg', 'C:photo.jpg', 'CON.jpg', 'café.jpg'.normalize('NFD'), long, 'dup.jpg', 'dup.jpg', 'DUP.jpg', 'a<b>|?*.jpg', 'plain.jpg']
    const accepted = await post(headers, await Promise.all(sentNames.map(async (name, i) => ({ name, bytes: await photo(i) }))))
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const manifest = await expectSafeDownload(headers, accepted.body.id, sentNames.length)
    expect(manifest.every((m) => m.state === 'done')).toBe(true)
    const byName = (name: string) => manifest.filter((m) => m.name === name)
    // Safe names are kept (with the result's extension), and say so.
    expect(byName('plain.jpg')[0]).toMatchObject({ file: 'plain.png', renamed: false })
    expect(byName('dup.jpg').map((m) => [m.file, m.renamed])).toEqual([
      ['dup.png', false],
      ['dup (2).png', true],
    ])
    expect(byName('DUP.jpg')[0]).toMatchObject({ file: 'DUP (3).png', renamed: true })
    // Unsafe ones keep as much of themselves as they can.
    expect(byName('12:30:00 shot.jpg')[0]).toMatchObject({ file: '12_30_00 shot.png', renamed: true })
    expect(byName('C:photo.jpg')[0]).toMatchObject({ file: 'C_photo.png', renamed: true })
    expect(byName('CON.jpg')[0]).toMatchObject({ file: '_CON.png', renamed: true })
    expect(byName('café.jpg'.normalize('NFD'))[0]).toMatchObject({ file: 'café.png'.normalize('NFC'), renamed: true })
    expect(byName('a<b>|?*.jpg')[0]).toMatchObject({ file: 'a_b____.png', renamed: true })
    const cut = byName(long)[0]!
    expect(cut.renamed).toBe(true)
    expect(cut.file).toMatch(/^é+\.png$/)
    expect(Buffer.byteLength(cut.file)).toBeLessThanOrEqual(MAX_ENTRY_NAME_BYTES)
  }, 120_000)

  it('does the same for a zip whose entries carry such names', async () => {
    const headers = await caller()
    const entryNames = ['12:30.jpg', 'nul.jpg', 'tab\there\u0001.jpg', 'ctrl\u0007\u0000.jpg', 'naïve.jpg'.normalize('NFD'), 'folder/same.jpg', 'other/same.jpg', 'Same.JPG']
    const hidden = { name: '.hid\u0000den.jpg', bytes: Buffer.from('x') }
    const zip = await zipOf([...(await Promise.all(entryNames.map(async (name, i) => ({ name, bytes: await photo(i) })))), hidden])
    const accepted = await post(headers, [{ name: 'batch.zip', bytes: zip }])
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    // PostgreSQL keeps no U+0000: the name as kept (and listed) has U+FFFD in its place.
    expect(accepted.body.skipped).toEqual([{ name: '.hid\uFFFDden.jpg', reason: 'hidden' }])
    const manifest = await expectSafeDownload(headers, accepted.body.id, entryNames.length)
    expect(manifest[3]!.name).toBe('ctrl\u0007\uFFFD.jpg')
    expect(manifest.map((m) => m.file)).toEqual(['12_30.png', '_nul.png', 'tabhere.png', 'ctrl\uFFFD.png', 'naïve.png'.normalize('NFC'), 'same.png', 'same (2).png', 'Same (3).png'])
  }, 120_000)
})
