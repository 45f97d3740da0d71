// The production server's own behaviour: headers, caching, compression, CSP, HTTPS and shutdown.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { expect, test } from './support/test'

test.describe('production server', () => {
  test('sends the security headers on pages', async ({ request }) => {
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

  test('pages run without a single Content-Security-Policy violation', async ({ page, browserName }, info) => {
    test.skip(info.project.name === 'no-js', 'scripts are what the policy governs')
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

  test('refuses a cookie-carrying POST from another site', async ({ request }) => {
    const response = await request.post('/contact', {
      headers: { origin: 'https://evil.example', cookie: 'fs_visitor=x' },
      form: { full_name: 'x' },
    })
    expect(response.status()).toBe(403)
  })

  test('answers /healthz with the database state', async ({ request }) => {
    const response = await request.get('/healthz')
    expect(response.status()).toBe(200)
    expect((await response.json()).database).toMatchObject({ ok: true, kind: 'pglite' })
  })
})

test.describe('a second server process', () => {
  test('sends HSTS behind an https proxy and stops cleanly on SIGTERM', async ({}, info) => {
    test.skip(info.project.name !== 'js', 'one process check is enough')
    const port = 3290 + (process.pid % 7)
    const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        DATA_DIR: `tests/.tmp/e2e-shutdown-${port}`,
        TRUST_PROXY: 'true',
        LOG_LEVEL: 'info',
        BUILD_DIR: process.env.BUILD_DIR ?? 'build',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    try {
      await expect
        .poll(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status, {
          timeout: 60_000,
        })
        .toBe(200)
      const secure = await fetch(`http://127.0.0.1:${port}/about`, { headers: { 'x-forwarded-proto': 'https' } })
      expect(secure.headers.get('strict-transport-security')).toContain('max-age=')

      child.kill('SIGTERM')
      const [code] = await once(child, 'exit')
      expect(code, output).toBe(0)
      expect(output).toContain('shutting down')
      expect(output).toContain('"stopped"')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
