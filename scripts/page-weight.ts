// npm run page-weight: what each page costs on a slow connection. For every page it fetches the HTML
// as a browser would (asking for br/gzip), finds the JavaScript, CSS and images the page loads up
// front, and sums the bytes as they travel (compressed), plus the number of requests.
//
// Run it against a production build:
//   BUILD_DIR=build-x npx remix vite:build
//   NODE_ENV=production BUILD_DIR=build-x PORT=3400 DATA_DIR=/tmp/pw node --import tsx server.ts &
//   npm run page-weight -- --url http://localhost:3400 [--json] [--check] [/ /about ...]
// --check exits with 1 when a page's JavaScript exceeds the budget (120 KB compressed on /).
import http from 'node:http'
import https from 'node:https'
import { pathToFileURL } from 'node:url'

export const DEFAULT_PAGES = ['/', '/about', '/api', '/contact', '/pricing', '/terms', '/privacy', '/login']
export const JS_BUDGET_BYTES: Record<string, number> = { '/': 120 * 1024 }

export type AssetKind = 'js' | 'css' | 'image' | 'other'

export interface Asset {
  url: string
  kind: AssetKind
  /** Loaded only when scrolled into view. */
  lazy: boolean
}

export interface Transfer {
  status: number
  /** Bytes on the wire (the body as sent, still compressed). */
  bytes: number
  encoding: string
  body: Buffer
}

export interface PageWeight {
  path: string
  status: number
  htmlBytes: number
  jsBytes: number
  cssBytes: number
  imageBytes: number
  /** Requests made on load: the document plus every eager asset. */
  requests: number
  lazyImages: number
  encoding: string
}

/** Fetches without decompressing, so the byte count is what a slow link really carries. */
export function transfer(url: string): Promise<Transfer> {
  const client = url.startsWith('https:') ? https : http
  return new Promise((resolve, reject) => {
    const request = client.get(url, { headers: { 'accept-encoding': 'br, gzip', 'user-agent': 'facet-page-weight' } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({
          status: response.statusCode ?? 0,
          bytes: body.length,
          encoding: String(response.headers['content-encoding'] ?? 'identity'),
          body,
        })
      })
      response.on('error', reject)
    })
    request.on('error', reject)
  })
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)
  return match ? (match[2] ?? match[3] ?? match[4] ?? '') : null
}

function kindOf(url: string): AssetKind {
  const pathname = url.split(/[?#]/)[0]!.toLowerCase()
  if (/\.(m?js)$/.test(pathname)) return 'js'
  if (pathname.endsWith('.css')) return 'css'
  if (/\.(png|jpe?g|webp|avif|gif|svg|ico)$/.test(pathname)) return 'image'
  return 'other'
}

/** Every same-origin asset the HTML asks for up front: scripts, module preloads, styles, icons, images. */
export function findAssets(html: string, pageUrl: string): Asset[] {
  const origin = new URL(pageUrl).origin
  const found = new Map<string, Asset>()
  const add = (raw: string | null, kind?: AssetKind, lazy = false) => {
    if (!raw || raw.startsWith('data:')) return
    const url = new URL(raw, pageUrl)
    if (url.origin !== origin) return
    const key = url.href
    const existing = found.get(key)
    // An asset both preloaded and lazily used is fetched up front.
    if (existing) existing.lazy &&= lazy
    else found.set(key, { url: key, kind: kind ?? kindOf(key), lazy })
  }

  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attribute(tag, 'rel') ?? '').toLowerCase().split(/\s+/)
    const href = attribute(tag, 'href')
    if (rel.includes('modulepreload')) add(href, 'js')
    else if (rel.includes('stylesheet')) add(href, 'css')
    else if (rel.includes('icon')) add(href, 'image')
    else if (rel.includes('preload')) add(href)
  }
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) add(attribute(tag, 'src'), 'js')
  // Remix's inline module script imports the entry and route modules by path.
  for (const [, body] of html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)) {
    for (const [, spec] of body!.matchAll(/(?:import|from)\s*\(?\s*["']([^"']+\.m?js)["']/g)) add(spec!, 'js')
  }
  for (const [tag] of html.matchAll(/<img\b[^>]*>/gi)) {
    add(attribute(tag, 'src'), 'image', (attribute(tag, 'loading') ?? '').toLowerCase() === 'lazy')
  }
  return [...found.values()]
}

export async function measurePage(baseUrl: string, path: string): Promise<PageWeight> {
  const pageUrl = new URL(path, baseUrl).href
  const page = await transfer(pageUrl)
  const html = (page.encoding === 'identity' ? page.body : await decompress(page.body, page.encoding)).toString('utf8')
  const assets = findAssets(html, pageUrl)
  const eager = assets.filter((a) => !a.lazy)
  const sizes = await Promise.all(eager.map(async (a) => ({ asset: a, t: await transfer(a.url) })))
  const sum = (kind: AssetKind) => sizes.filter((s) => s.asset.kind === kind).reduce((n, s) => n + s.t.bytes, 0)
  return {
    path,
    status: page.status,
    htmlBytes: page.bytes,
    jsBytes: sum('js'),
    cssBytes: sum('css'),
    imageBytes: sum('image'),
    requests: 1 + eager.length,
    lazyImages: assets.filter((a) => a.lazy).length,
    encoding: page.encoding,
  }
}

async function decompress(body: Buffer, encoding: string): Promise<Buffer> {
  const zlib = await import('node:zlib')
  if (encoding === 'br') return zlib.brotliDecompressSync(body)
  if (encoding === 'gzip') return zlib.gunzipSync(body)
  if (encoding === 'deflate') return zlib.inflateSync(body)
  return body
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

export function formatTable(rows: PageWeight[]): string {
  const header = ['page', 'status', 'html', 'js', 'css', 'images', 'requests', 'lazy img', 'encoding']
  const lines = rows.map((r) => [
    r.path,
    String(r.status),
    kb(r.htmlBytes),
    kb(r.jsBytes),
    kb(r.cssBytes),
    kb(r.imageBytes),
    String(r.requests),
    String(r.lazyImages),
    r.encoding,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const render = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...lines.map(render)].join('\n')
}

function parseArgs(argv: string[]) {
  const options = { url: process.env.PAGE_WEIGHT_URL ?? 'http://localhost:3000', json: false, check: false, pages: [] as string[] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--url') options.url = argv[++i] ?? options.url
    else if (arg === '--json') options.json = true
    else if (arg === '--check') options.check = true
    else if (arg.startsWith('/')) options.pages.push(arg)
    else throw new Error(`Unknown argument: ${arg}`)
  }
  if (options.pages.length === 0) options.pages = DEFAULT_PAGES
  return options
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const rows: PageWeight[] = []
  for (const path of options.pages) rows.push(await measurePage(options.url, path))
  if (options.json) console.log(JSON.stringify(rows, null, 2))
  else {
    console.log(`Page weight at ${options.url} (bytes on the wire; images marked loading="lazy" are not counted)\n`)
    console.log(formatTable(rows))
  }
  const over = rows.filter((r) => JS_BUDGET_BYTES[r.path] !== undefined && r.jsBytes > JS_BUDGET_BYTES[r.path]!)
  for (const r of over) console.error(`\n${r.path}: ${kb(r.jsBytes)} of JavaScript is over the ${kb(JS_BUDGET_BYTES[r.path]!)} budget`)
  if (options.check && over.length > 0) process.exitCode = 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  })
}
