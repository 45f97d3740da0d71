// The production server's own behaviour: headers, caching, compression, CSP, HTTPS and shutdown.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { expect, test } from './support/test'

test.describe('production server', () => {
  // The tests tagged @js-only that take only `request` speak HTTP without a browser: the project's JavaScript
  // setting changes nothing for them, so the no-js project would repeat them.

  test('sends the security headers on pages', { tag: '@js-only' }, async ({ request }) => {
    const response = await request.get('/')
    const headers = response.headers()
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(headers['content-security-policy']).toMatch(/script-src [^;]*'nonce-[A-Za-z0-9+/=]+'/)
    expect(headers['x-content-type-options']).toBe('nosniff')
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
    expect(headers['strict-transport-security']).toBeUndefined()
  })

  test('caches hashed assets for a year and compresses them', async ({ page, request }) => {
    await page.goto('/')
    const asset = await page.evaluate(
      () => Array.from(document.querySelectorAll('link[rel=stylesheet], link[rel=modulepreload]'))
        .map((l) => l.getAttribute('href'))
        .find((h) => h?.startsWith('/assets/')),
    )
    expect(asset).toBeTruthy()
    const response = await request.get(asset!, { headers: { 'accept-encoding': 'gzip' } })
    expect(response.headers()['cache-control']).toContain('max-age=31536000')
    expect(response.headers()['cache-control']).toContain('immutable')
    expect(response.headers()['content-encoding']).toBe('gzip')
  })

  test('pages run without a single Content-Security-Policy violation', { tag: '@js-only' }, async ({ page, browserName }) => {
    // Only with JavaScript: scripts are what the policy governs.
    const violations: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text())
    })
    for (const path of ['/', '/about', '/api', '/contact', '/pricing', '/credits', '/login', '/tools/face-blurrer']) {
      await page.goto(path)
      await page.waitForLoadState('networkidle')
    }
    expect(violations, browserName).toEqual([])
  })

  test('refuses a cookie-carrying POST from another site', { tag: '@js-only' }, async ({ request }) => {
    const response = await request.post('/contact', {
      headers: { origin: 'https://evil.example', cookie: 'fs_visitor=x' },
      form: { full_name: 'x' },
    })
    expect(response.status()).toBe(403)
  })

  test('answers /healthz with the database state', { tag: '@js-only' }, async ({ request }) => {
    const response = await request.get('/healthz')
    expect(response.status()).toBe(200)
    expect((await response.json()).database).toMatchObject({ ok: true, kind: 'pglite' })
  })
})

test.describe('a second server process', () => {
  // One process check is enough: in the js project.
  test('sends HSTS behind an https proxy and stops cleanly on SIGTERM', { tag: '@js-only' }, async () => {
    const port = Number(process.env.E2E_PORT ?? 3210) + 44
    const server = studio(port, `tests/.tmp/e2e-shutdown-${port}-${Date.now()}`, { TRUST_PROXY: 'true' })
    try {
      await healthy(port, server)
      const secure = await fetch(`http://127.0.0.1:${port}/about`, { headers: { 'x-forwarded-proto': 'https' } })
      expect(secure.headers.get('strict-transport-security')).toContain('max-age=')

      server.child.kill('SIGTERM')
      const [code] = await once(server.child, 'exit')
      expect(code, server.output()).toBe(0)
      expect(server.output()).toContain('shutting down')
      expect(server.output()).toContain('"stopped"')
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  })
})

/** A production server of its own on `port` (a fresh PGlite in `dataDir` unless it exists), and its output. */
type Studio = { child: ChildProcess; output: () => string }

function studio(port: number, dataDir: string, env: Record<string, string> = {}): Studio {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, DATA_DIR: dataDir, LOG_LEVEL: 'info', BUILD_DIR: process.env.BUILD_DIR ?? 'build', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  return { child, output: () => output }
}

/**
 * /healthz of the studio on `port` once it answers 200. Waits as long as the test may run (the
 * test's own timeout is the one limit), and fails at once with the output if the process exits.
 */
async function healthy(port: number, server: Studio): Promise<{ queue: { waiting: number; running: number } }> {
  let health: { queue: { waiting: number; running: number } } | null = null
  await expect
    .poll(async () => {
      if (server.child.exitCode !== null) throw new Error(`the studio on port ${port} exited (${server.child.exitCode}):\n${server.output()}`)
      const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null)
      health = response?.ok ? await response.json() : null
      return response?.status
    }, { timeout: 0 })
    .toBe(200)
  return health!
}

test.describe('a synchronous run when its server shuts down', () => {
  // One process check is enough: in the js project.
  test('the waiting client gets 503 with Retry-After and the job\'s URL, never a dropped connection; the run goes on after the restart and is charged once', { tag: '@js-only' }, async () => {
    test.setTimeout(240_000)
    const port = Number(process.env.E2E_PORT ?? 3210) + 45
    const dataDir = `tests/.tmp/e2e-handback-${port}-${Date.now()}`
    // Web only: no worker here takes the job, so the request is still waiting when SIGTERM comes.
    const web = studio(port, dataDir, { WORKER_CONCURRENCY: '0' })
    let restarted: ReturnType<typeof studio> | null = null
    try {
      await healthy(port, web)
      const form = new FormData()
      form.append('image', new Blob([readFileSync('tests/fixtures/photos/noface-rocket.jpg')], { type: 'image/jpeg' }), 'rocket.jpg')
      const answer = fetch(`http://127.0.0.1:${port}/api/remove-bg/`, { method: 'POST', body: form })
      await expect.poll(async () => (await healthy(port, web)).queue.waiting, { timeout: 0 }).toBe(1)

      web.child.kill('SIGTERM')
      const response = await answer
      expect(response.status, web.output()).toBe(503)
      const body = await response.json()
      const jobUrl = response.headers.get('location')!
      expect(jobUrl).toMatch(/^\/api\/jobs\/[0-9a-f-]{36}\/$/)
      expect(body).toMatchObject({ job_url: jobUrl, answer_url: `${jobUrl}answer/`, remaining: 4 })
      expect(body.error).toContain('The studio restarted before your run ended.')
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      // The run was charged when it was queued, and that charge stands: it goes on.
      expect(response.headers.get('x-credits-charged')).toBe('1')
      const cookie = response.headers.get('set-cookie')!.split(';')[0]!
      const [code] = await once(web.child, 'exit')
      expect(code, web.output()).toBe(0)

      // The studio comes back (with a worker): the client follows the URL it was given.
      restarted = studio(port, dataDir, { WORKER_CONCURRENCY: '1' })
      await healthy(port, restarted)
      let job: { status?: string; remaining?: number } = {}
      await expect
        .poll(async () => {
          job = await (await fetch(`http://127.0.0.1:${port}${jobUrl}`, { headers: { cookie } })).json()
          return job.status
        }, { timeout: 0 })
        .toBe('succeeded')
      expect(job.remaining).toBe(4)
      const result = await fetch(`http://127.0.0.1:${port}${body.answer_url}`, { headers: { cookie } })
      expect(result.status).toBe(200)
      expect(result.headers.get('content-type')).toBe('image/png')
      expect(result.headers.get('x-credits-remaining')).toBe('4')
    } finally {
      for (const server of [web, restarted]) if (server && server.child.exitCode === null) server.child.kill('SIGKILL')
    }
  })
})
