// npm run page-weight: what each page costs on a slow connection. For every page it fetches the HTML
// as a browser would (asking for br/gzip), finds the JavaScript, CSS and images the page loads up
// front, and sums the bytes as they travel (compressed), plus the number of requests.
//
// Run it against a production build:
//   BUILD_DIR=build-x npx remix vite:build
//   NODE_ENV=production BUILD_DIR=build-x PORT=3400 DATA_DIR=/tmp/pw node --import tsx server.ts &
//   npm run page-weight -- --url http://localhost:3400 [--json] [--check] [/ /about ...]
// --check exits with 1 when a page's JavaScript exceeds the budget (120 KB compressed, on every page).
// The suite weighs every page, signed in as well as out (tests/e2e/page-weight.spec.ts); PAGES lists
// them and a unit test keeps the list in step with app/routes.
import http from 'node:http'
import https from 'node:https'
import { pathToFileURL } from 'node:url'

/** Compressed JavaScript a page may load up front, on every page, signed in or not (issue 21). */
export const JS_BUDGET_BYTES = 120 * 1024

/** Who must be signed in to see a page: nobody, any verified account, or an operator (OPERATOR_EMAILS). */
export type Visitor = 'guest' | 'account' | 'operator'

export interface PageToWeigh {
  /** The route module that renders it (app/routes/…), so the list can be checked against the routes. */
  route: string
  /** Its address; `:team`, `:user`, `:token` and `:job` are filled in by whoever signs in. */
  path: string
  as: Visitor
  status?: number
}

/** Every page of the studio. A page route missing here fails scripts/page-weight.test.ts. */
export const PAGES: PageToWeigh[] = [
  { route: '_index.tsx', path: '/', as: 'guest' },
  { route: 'about.tsx', path: '/about', as: 'guest' },
  { route: 'api._index.tsx', path: '/api', as: 'guest' },
  { route: 'contact.tsx', path: '/contact', as: 'guest' },
  { route: 'pricing.tsx', path: '/pricing', as: 'guest' },
  { route: 'terms.tsx', path: '/terms', as: 'guest' },
  { route: 'privacy.tsx', path: '/privacy', as: 'guest' },
  { route: 'login.tsx', path: '/login', as: 'guest' },
  { route: 'reset-password.tsx', path: '/reset-password?token=unknown', as: 'guest' },
  { route: 'verify-email.tsx', path: '/verify-email?token=unknown', as: 'guest' },
  { route: '$.tsx', path: '/no-such-page', as: 'guest', status: 404 },
  { route: 'credits.tsx', path: '/credits', as: 'guest' },
  { route: 'history.tsx', path: '/history', as: 'guest' },
  { route: 'tools.background-remover.tsx', path: '/tools/background-remover', as: 'guest' },
  { route: 'tools.face-restorer.tsx', path: '/tools/face-restorer', as: 'guest' },
  { route: 'tools.image-enhancer.tsx', path: '/tools/image-enhancer', as: 'guest' },
  { route: 'tools.face-blurrer.tsx', path: '/tools/face-blurrer', as: 'guest' },
  { route: 'tools.svg-converter.tsx', path: '/tools/svg-converter', as: 'guest' },
  { route: 'tools.batch.tsx', path: '/tools/batch', as: 'guest' },
  // Signed in, the header and the tools carry the account's own controls.
  { route: 'tools.background-remover.tsx', path: '/tools/background-remover', as: 'account' },
  { route: 'tools.svg-converter.tsx', path: '/tools/svg-converter', as: 'account' },
  { route: 'tools.batch.tsx', path: '/tools/batch', as: 'account' },
  { route: 'credits.tsx', path: '/credits', as: 'account' },
  { route: 'dashboard.tsx', path: '/dashboard', as: 'account' },
  { route: 'account.delete.tsx', path: '/account/delete', as: 'account' },
  { route: 'account.deleted.tsx', path: '/account/deleted', as: 'guest' },
  { route: 'history.tsx', path: '/history', as: 'account' },
  // The correction page of a background removal the account ran (the brush editor's page).
  { route: 'edit.$jobId.tsx', path: '/edit/:job', as: 'account' },
  // "This result is wrong" without JavaScript: the report's own page for that run.
  { route: 'feedback.$jobId.tsx', path: '/feedback/:job', as: 'account' },
  { route: 'teams._index.tsx', path: '/teams', as: 'account' },
  { route: 'teams.$id.tsx', path: '/teams/:team', as: 'account' },
  { route: 'teams.invites.$token.tsx', path: '/teams/invites/:token', as: 'account' },
  { route: 'console._index.tsx', path: '/console', as: 'operator' },
  { route: 'console.users.$id.tsx', path: '/console/users/:user', as: 'operator' },
  { route: 'console.teams.$id.tsx', path: '/console/teams/:team', as: 'operator' },
  { route: 'console.queue.tsx', path: '/console/queue', as: 'operator' },
  { route: 'console.audit.tsx', path: '/console/audit', as: 'operator' },
  { route: 'console.feedback._index.tsx', path: '/console/feedback', as: 'operator' },
]

export const DEFAULT_PAGES = [...new Set(PAGES.filter((p) => p.as === 'guest' && !p.path.includes(':')).map((p) => p.path))]

export function overBudget(row: PageWeight): boolean {
  return row.jsBytes > JS_BUDGET_BYTES
}

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
  /** Separate script files the page loads up front (each one a request on a slow link). */
  jsFiles: number
  cssBytes: number
  imageBytes: number
  /** Requests made on load: the document plus every eager asset. */
  requests: number
  lazyImages: number
  encoding: string
}

/** Fetches without decompressing, so the byte count is what a slow link really carries. */
export function transfer(url: string, cookie?: string): Promise<Transfer> {
  const client = url.startsWith('https:') ? https : http
  const headers: Record<string, string> = { 'accept-encoding': 'br, gzip', 'user-agent': 'facet-page-weight' }
  if (cookie) headers.cookie = cookie
  return new Promise((resolve, reject) => {
    const request = client.get(url, { headers }, (response) => {
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

/** `cookie` measures a page as a signed-in browser sees it (the session cookie, sent with the HTML only). */
export async function measurePage(baseUrl: string, path: string, cookie?: string): Promise<PageWeight> {
  const pageUrl = new URL(path, baseUrl).href
  const page = await transfer(pageUrl, cookie)
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
    jsFiles: eager.filter((a) => a.kind === 'js').length,
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
  const header = ['page', 'status', 'html', 'js', 'js files', 'css', 'images', 'requests', 'lazy img', 'encoding']
  const lines = rows.map((r) => [
    r.path,
    String(r.status),
    kb(r.htmlBytes),
    kb(r.jsBytes),
    String(r.jsFiles),
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
  const options = {
    url: process.env.PAGE_WEIGHT_URL ?? 'http://localhost:3000',
    cookie: process.env.PAGE_WEIGHT_COOKIE,
    json: false,
    check: false,
    pages: [] as string[],
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--url') options.url = argv[++i] ?? options.url
    else if (arg === '--cookie') options.cookie = argv[++i]
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
  for (const path of options.pages) rows.push(await measurePage(options.url, path, options.cookie))
  if (options.json) console.log(JSON.stringify(rows, null, 2))
  else {
    console.log(`Page weight at ${options.url} (bytes on the wire; images marked loading="lazy" are not counted)\n`)
    console.log(formatTable(rows))
  }
  const over = rows.filter(overBudget)
  for (const r of over) console.error(`\n${r.path}: ${kb(r.jsBytes)} of JavaScript is over the ${kb(JS_BUDGET_BYTES)} budget`)
  if (options.check && over.length > 0) process.exitCode = 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  })
}
