// The SDK and the `facet` command against this running studio, as a developer meets them: a key made on
// the studio, then @facet-studio/sdk in this process (a path, a buffer, a refusal, a job with progress)
// and `npx facet` as a child process from the repository's root (one file, a batch, a refused key).
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { createClient, FacetError, type Job } from '@facet-studio/sdk'
import { expect, test } from './support/test'
import { fixture, signInNewUser } from './support/tools'

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

async function newKey(page: import('@playwright/test').Page, environment: 'live' | 'test'): Promise<string> {
  await signInNewUser(page)
  const made = await page.request.post('/api/keys/', { data: { name: `SDK ${environment}`, environment } })
  expect(made.status(), await made.text()).toBe(201)
  return ((await made.json()) as { key: string }).key
}

/** A command from the repository's root (`npx …`, as the README gives it): its exit code and output. */
function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no-install', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
const facet = (args: string[], env: Record<string, string>) => run(['facet', ...args], env)

test('the SDK removes a background from a path, from a buffer and in the README\'s example, charged once each', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const key = await newKey(page, 'live')
  const client = createClient({ baseUrl: baseURL!, apiKey: key })
  const before = (await client.balance()).balance

  const fromPath = await client.removeBackground(fixture('photos/product-gameboy-white-bg.jpg'))
  expect(fromPath.data.subarray(0, 8)).toEqual(PNG_SIGNATURE)
  expect((await sharp(fromPath.data).metadata()).hasAlpha).toBe(true)
  expect(fromPath).toMatchObject({ contentType: 'image/png', creditsCharged: 1, creditsRemaining: before - 1 })

  const fromBuffer = await client.removeBackground(readFileSync(fixture('photos/noface-rocket.jpg')), { format: 'webp' }, { filename: 'rocket.jpg' })
  expect(fromBuffer.contentType).toBe('image/webp')
  expect((await sharp(fromBuffer.data).metadata()).format).toBe('webp')
  expect(fromBuffer).toMatchObject({ creditsCharged: 1, creditsRemaining: before - 2 })
  expect((await client.balance()).balance).toBe(before - 2)

  // The README's first SDK call, run as it says.
  const out = join(mkdtempSync(join(tmpdir(), 'facet-sdk-example-')), 'cut.png')
  const example = await run(['tsx', 'packages/sdk/examples/remove-background.ts', fixture('photos/noface-rocket.jpg'), out], { FACET_URL: baseURL!, FACET_API_KEY: key })
  expect(example.code, example.stderr).toBe(0)
  expect(example.stdout).toContain(`${out}: 1 credit(s) charged, ${before - 3} left`)
  expect(readFileSync(out).subarray(0, 8)).toEqual(PNG_SIGNATURE)
})

test('a refusal is a FacetError carrying the studio\'s own message and status', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const key = await newKey(page, 'test')
  const client = createClient({ baseUrl: baseURL!, apiKey: key })
  const notAnImage = Buffer.from('this is a text file, not a photo\n')

  // The same request sent plainly (no cookie, as a script): what the studio says is what the error must carry.
  const form = new FormData()
  form.set('image', new Blob([notAnImage]), 'notes.png')
  const plain = await fetch(new URL('/api/remove-bg/', baseURL), { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form })
  const said = (await plain.json()) as { error: string }

  const refusal = await client.removeBackground(notAnImage, {}, { filename: 'notes.png' }).catch((error: unknown) => error)
  expect(refusal).toBeInstanceOf(FacetError)
  expect(refusal).toMatchObject({ status: plain.status, message: said.error, refused: true })
  expect(plain.status).toBe(415)

  const badKey = createClient({ baseUrl: baseURL!, apiKey: 'fs_live_not-a-key' })
  const unauthorised = await badKey.balance().catch((error: unknown) => error)
  expect(unauthorised).toBeInstanceOf(FacetError)
  expect((unauthorised as FacetError).status).toBe(401)
  expect((unauthorised as FacetError).message.length).toBeGreaterThan(0)
})

test('a job waits with progress and its result is the tool\'s answer', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const client = createClient({ baseUrl: baseURL!, apiKey: await newKey(page, 'test') })
  const accepted = await client.jobs.create('face-blurrer', fixture('photos/portrait-astronaut.png'), { blur: 24 })
  expect(accepted.status).toMatch(/queued|running|succeeded/)

  const seen: Job[] = []
  const ended = await client.jobs.wait(accepted.id, { onProgress: (job) => seen.push(job), intervalMs: 200 })
  expect(ended).toMatchObject({ id: accepted.id, tool: 'face-blurrer', status: 'succeeded', progress: 100 })
  expect(seen.at(-1)).toEqual(ended)
  const progress = seen.map((job) => job.progress)
  expect(progress).toEqual([...progress].sort((a, b) => a - b))

  const result = await client.jobs.result(accepted.id)
  expect(result.data.subarray(0, 8)).toEqual(PNG_SIGNATURE)
  expect(result.headers.get('X-Faces-Found')).toBe('1')
})

test('`npx facet` writes one file, runs a folder as a batch with its exit code, and refuses a bad key', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const work = mkdtempSync(join(tmpdir(), 'facet-cli-journey-'))
  const env = { FACET_URL: baseURL!, FACET_API_KEY: await newKey(page, 'test'), XDG_CONFIG_HOME: join(work, 'config') }

  const single = await facet(['remove-bg', fixture('photos/noface-rocket.jpg'), '-o', join(work, 'cut.png')], env)
  expect(single.code, single.stderr).toBe(0)
  expect(single.stdout.trim()).toBe(join(work, 'cut.png'))
  expect(readFileSync(join(work, 'cut.png')).subarray(0, 8)).toEqual(PNG_SIGNATURE)

  // A folder of two photos and one damaged file: the two are written, the exit code says one failed.
  const shots = join(work, 'shots')
  mkdirSync(shots)
  copyFileSync(fixture('photos/noface-rocket.jpg'), join(shots, 'rocket.jpg'))
  copyFileSync(fixture('photos/product-gameboy-white-bg.jpg'), join(shots, 'gameboy.jpg'))
  writeFileSync(join(shots, 'broken.png'), readFileSync(fixture('photos/noface-coffee.png')).subarray(0, 2000))
  const batch = await facet(['remove-bg', shots, '-o', join(work, 'out')], env)
  expect(batch.code, batch.stderr).toBe(4)
  expect(readdirSync(join(work, 'out')).sort()).toEqual(['gameboy.png', 'rocket.png'])
  expect(batch.stdout.trim().split('\n').sort()).toEqual([join(work, 'out', 'gameboy.png'), join(work, 'out', 'rocket.png')])
  expect(batch.stderr).toMatch(/failed: broken\.png: /)
  expect(batch.stderr).toContain('1 of 3 files failed')

  const refused = await facet(['balance'], { ...env, FACET_API_KEY: 'fs_live_not-a-key' })
  expect(refused.code).toBe(2)
  expect(refused.stderr).toMatch(/the studio answered 401: /)
})
