// The /api page's first call, run as a developer would: copied from the page into a shell, with a
// real key, against this studio. It saves a cutout; with a bad key it fails loudly (a non-zero exit,
// the JSON refusal on screen) and leaves no broken PNG behind. Each run sends its own Idempotency-Key.
import { spawnSync } from 'node:child_process'
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from './support/test'
import { fixture, signInNewUser } from './support/tools'

async function firstCall(script: string, apiKey: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'facet-first-call-'))
  await copyFile(fixture('photos/product-gameboy-white-bg.jpg'), path.join(dir, 'product.jpg'))
  try {
    const shell = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, FACET_API_KEY: apiKey } })
    const result = { code: shell.status, stdout: shell.stdout }
    const files = await readdir(dir)
    const cutout = files.includes('cutout.png') ? await readFile(path.join(dir, 'cutout.png')) : null
    return { ...result, cutout }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

test('the first call on /api works when copied into a shell, and fails loudly with a bad key', { tag: '@js-only' }, async ({ page }) => {
  // Only with JavaScript: the command is the same text with and without JavaScript.
  await signInNewUser(page)
  const made = await page.request.post('/api/keys/', { data: { name: 'First call', environment: 'test' } })
  expect(made.status(), await made.text()).toBe(201)
  const { key } = (await made.json()) as { key: string }

  await page.goto('/api')
  const script = (await page.getByLabel('curl', { exact: true }).textContent())!
  expect(script).toContain(new URL(page.url()).origin)

  // Twice with the same photo: each run has its own key, so the second is a new run, not a 422.
  for (const attempt of [1, 2]) {
    const ok = await firstCall(script, key)
    expect(ok.code, `run ${attempt}: ${ok.stdout}`).toBe(0)
    expect(ok.cutout?.subarray(1, 4).toString(), `run ${attempt} saved a PNG`).toBe('PNG')
  }

  const refused = await firstCall(script, 'fs_live_not-a-key')
  expect(refused.code).not.toBe(0)
  expect(JSON.parse(refused.stdout.trim())).toMatchObject({ error: expect.stringContaining('API key'), detail: expect.any(String) })
  expect(refused.cutout).toBeNull()
})
