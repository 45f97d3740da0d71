import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import { brotliCompressSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PAGES, findAssets, measurePage, PAGES } from './page-weight'

describe('PAGES', () => {
  it('lists every page route, so the suite weighs every page', () => {
    const routes = path.resolve(__dirname, '../app/routes')
    const pageRoutes = readdirSync(routes).filter((name) => {
      if (!name.endsWith('.tsx') || name.includes('.test.')) return false
      const source = readFileSync(path.join(routes, name), 'utf8')
      // A layout (it renders its children's <Outlet />) is weighed with each child page.
      return /export default/.test(source) && !/<Outlet\b/.test(source)
    })
    expect(pageRoutes.length).toBeGreaterThan(20)
    const listed = new Set(PAGES.map((p) => p.route))
    expect(pageRoutes.filter((route) => !listed.has(route))).toEqual([])
    expect([...listed].filter((route) => !pageRoutes.includes(route))).toEqual([])
  })

  it('weighs the pages a visitor can open when run by hand without a cookie', () => {
    expect(DEFAULT_PAGES).toContain('/')
    expect(DEFAULT_PAGES).toContain('/tools/batch')
    expect(DEFAULT_PAGES.some((p) => p.startsWith('/dashboard') || p.startsWith('/console'))).toBe(false)
  })
})

const PAGE = `<!DOCTYPE html><html><head>
<link rel="modulepreload" href="/assets/manifest-1.js"/>
<link rel="modulepreload" href="/assets/entry.client-2.js"/>
<link rel="stylesheet" href="/assets/app-3.css"/>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
<link rel="stylesheet" href="https://cdn.example.com/other.css"/>
</head><body>
<img src="/images/hero.webp" width="10" height="10" loading="eager"/>
<img src="/images/below.webp" width="10" height="10" loading="lazy"/>
<img src="data:image/png;base64,AAAA"/>
<script type="module">import "/assets/manifest-1.js"; import * as route0 from "/assets/root-4.js";</script>
</body></html>`

describe('findAssets', () => {
  it('finds same-origin scripts, module preloads, styles, icons and images, once each', () => {
    const assets = findAssets(PAGE, 'http://localhost:9/')
    const byUrl = Object.fromEntries(assets.map((a) => [a.url.replace('http://localhost:9', ''), a]))
    expect(Object.keys(byUrl).sort()).toEqual(
      ['/assets/app-3.css', '/assets/entry.client-2.js', '/assets/manifest-1.js', '/assets/root-4.js', '/favicon.svg', '/images/below.webp', '/images/hero.webp'].sort(),
    )
    expect(byUrl['/assets/root-4.js']!.kind).toBe('js')
    expect(byUrl['/assets/app-3.css']!.kind).toBe('css')
    expect(byUrl['/images/below.webp']!.lazy).toBe(true)
    expect(byUrl['/images/hero.webp']!.lazy).toBe(false)
  })
})

describe('measurePage', () => {
  const bodies: Record<string, Buffer> = {
    '/': Buffer.from(PAGE),
    '/assets/manifest-1.js': Buffer.alloc(1000, 'a'),
    '/assets/entry.client-2.js': Buffer.alloc(2000, 'b'),
    '/assets/root-4.js': Buffer.alloc(3000, 'c'),
    '/assets/app-3.css': Buffer.alloc(500, 'd'),
    '/favicon.svg': Buffer.alloc(100, 'e'),
    '/images/hero.webp': Buffer.alloc(700, 'f'),
  }
  const server = createServer((req, res) => {
    const body = bodies[req.url ?? '']
    if (!body) return res.writeHead(404).end()
    // Compress like the real server, so the figures are bytes on the wire.
    const compressed = brotliCompressSync(body)
    res.writeHead(200, { 'content-encoding': 'br' }).end(compressed)
  })
  let base = ''
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('sums compressed bytes per kind and counts the requests made on load', async () => {
    const weight = await measurePage(base, '/')
    const wire = (path: string) => brotliCompressSync(bodies[path]!).length
    expect(weight.status).toBe(200)
    expect(weight.encoding).toBe('br')
    expect(weight.jsBytes).toBe(wire('/assets/manifest-1.js') + wire('/assets/entry.client-2.js') + wire('/assets/root-4.js'))
    expect(weight.cssBytes).toBe(wire('/assets/app-3.css'))
    expect(weight.imageBytes).toBe(wire('/favicon.svg') + wire('/images/hero.webp'))
    expect(weight.jsBytes).toBeLessThan(6000)
    expect(weight.jsFiles).toBe(3)
    // document + 3 scripts + 1 stylesheet + icon + eager image; the lazy image and the CDN file are not counted.
    expect(weight.requests).toBe(7)
    expect(weight.lazyImages).toBe(1)
  })
})
