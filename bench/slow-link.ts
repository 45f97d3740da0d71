// Issue 35 item 2 (decision 179): the enhanced flow is never slower than the plain form on a slow phone
// link. A production build served by a real server (PGlite in a temp DATA_DIR), Debian's Chromium (its
// headless shell) at 360 × 740, every request throttled to 400 kbps down and up with 400 ms latency and the
// cache off (DevTools protocol: Network.emulateNetworkConditions, Network.setCacheDisabled). Per tool:
//   plain     JavaScript off (a context with javaScriptEnabled false): the form posts, the page answers;
//   loaded    JavaScript on, the page hydrated first, then the tap;
//   early     JavaScript on, the tap as soon as the run button exists (before the scripts have loaded).
// Each figure runs from the tap on the run button to the result shown: the download link visible and every
// visible image of the result drawn (its size known: naturalWidth > 0, "shown"), and, separately, every
// such image fully loaded ("complete"). Also the bytes the browser received in between, each guest page's
// time to hydrate (html[data-hydrated], set by the root's first effect, read as performance.now() from the
// navigation's start) and its count of script files. Medians of SLOW_LINK_REPS runs (3), ratios against the
// plain form of the same run. Reported, never judged. Needs a production build (`npm run build`; BUILD_DIR
// picks another, e.g. a build of the previous commit to compare).
//   npm run bench -- slow-link     or     npx tsx bench/slow-link.ts
//   SLOW_LINK_REPS=3 SLOW_LINK_TOOLS=background-remover,face-blurrer SLOW_LINK_PAGES=0 BENCH_PORT=4126
//   SLOW_LINK_TOOLS=none SLOW_LINK_RUNNING=1 BENCH_PORT=3000 (pages only, on a studio already running)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test'
import sharp from 'sharp'
import { DEFAULT_PAGES } from '../scripts/page-weight'
import { PHOTOS, runAsScript, spawnStudio, type SpawnedStudio } from './support'

const PORT = Number(process.env.BENCH_PORT ?? 4126)
const BASE = `http://127.0.0.1:${PORT}`
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell'
const REPS = Math.max(1, Number(process.env.SLOW_LINK_REPS ?? 3))
const WAIT_MS = 300_000
/** A loaded machine (load 45 on 2 cores was seen) can take minutes to start the studio. */
const START_WAIT_MS = 1_200_000
/** How long after "shown" the full load is waited for; past it "complete" is reported as null. */
const COMPLETE_WAIT_MS = 30_000
/** The link: 400 kbit/s each way (bytes per second for the protocol), 400 ms added to every request. */
export const SLOW_LINK = { offline: false, latency: 400, downloadThroughput: 400_000 / 8, uploadThroughput: 400_000 / 8 }
export const PHONE_VIEWPORT = { width: 360, height: 740 }
const SVG_DIR = path.resolve(PHOTOS, '../svg')

type Flow = 'plain' | 'loaded' | 'early'
const FLOWS: Flow[] = ['plain', 'loaded', 'early']

interface ToolCase {
  slug: string
  /** The file, made once (a phone-sized photo, or a fixture as it is). */
  file: () => Promise<{ name: string; mimeType: string; buffer: Buffer }>
  /** The converter needs an account. */
  account?: boolean
}

/** A phone photo: a fixture enlarged to `width` pixels and saved as a phone saves it (JPEG, quality 92). */
async function phonePhoto(fixture: string, width: number, name: string) {
  const buffer = await sharp(path.join(PHOTOS, fixture)).resize({ width, kernel: 'lanczos3' }).jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer()
  return { name, mimeType: 'image/jpeg', buffer }
}

const TOOL_CASES: ToolCase[] = [
  // A product on a white background, as a phone takes it (1600 × 1941, about 0.4 MB: at 400 kbit/s a
  // 1-3 MB photo spends 20-60 s uploading, the same in every flow, and dilutes the ratios).
  { slug: 'background-remover', file: () => phonePhoto('product-gameboy-white-bg.jpg', 1600, 'IMG_0001.jpg') },
  // A group photo: 23 faces, 1600 px wide.
  { slug: 'face-blurrer', file: () => phonePhoto('group-nasa-astronaut-class.jpg', 1600, 'IMG_0002.jpg') },
  // A small, degraded face (128 px): the 512 px portrait ran past the 120 s limit on this machine under load.
  { slug: 'face-restorer', file: async () => ({ name: 'old-face.jpg', mimeType: 'image/jpeg', buffer: readFileSync(path.join(PHOTOS, 'degraded-face-astronaut-128px-q35.jpg')) }) },
  // The enhancer's use: a small, degraded picture made four times larger (the answer is the big file).
  { slug: 'image-enhancer', file: async () => ({ name: 'small-face.jpg', mimeType: 'image/jpeg', buffer: readFileSync(path.join(PHOTOS, 'degraded-face-astronaut-128px-q35.jpg')) }) },
  { slug: 'svg-converter', account: true, file: async () => ({ name: 'browser.svg', mimeType: 'image/svg+xml', buffer: readFileSync(path.join(SVG_DIR, 'tango-internet-web-browser.svg')) }) },
]

function startStudio(dataDir: string): Promise<SpawnedStudio> {
  return spawnStudio(
    {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(PORT),
      PUBLIC_URL: BASE,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Every run is a fresh visitor (a cold cache, as a first visit): the address may start many.
      GUEST_IDENTITIES_PER_ADDRESS: '100000',
      SIGN_UPS_PER_ADDRESS: '1000',
      E2E: '1',
      // The figures are the link's: a run slowed by a loaded machine must not fail for its time limit.
      TOOL_TIMEOUT_MS: '600000',
    },
    { waitMs: START_WAIT_MS },
  )
}

/** A signed-in account's cookies (the converter needs one): registered and verified through the API. */
async function accountCookies(browser: Browser, dataDir: string) {
  const context = await browser.newContext({ baseURL: BASE })
  const email = `slow-link-${Date.now()}@example.test`
  const password = 'correct horse battery staple 42'
  const register = await context.request.post('/api/auth/register/', { data: { email, password } })
  if (register.status() !== 201) throw new Error(`register: ${register.status()} ${await register.text()}`)
  let token: string | null = null
  const mailDir = path.join(dataDir, 'mail')
  for (let tries = 0; !token && tries < 600; tries++) {
    for (const name of readdirSync(mailDir, { withFileTypes: true }).filter((f) => f.name.endsWith('.json'))) {
      try {
        const mail = JSON.parse(readFileSync(path.join(mailDir, name.name), 'utf8')) as { to: string; link?: string; text: string }
        const link = mail.to.toLowerCase() === email ? (mail.link ?? /https?:\/\/\S+/.exec(mail.text)?.[0]) : undefined
        token = link ? new URL(link).searchParams.get('token') : null
        if (token) break
      } catch {
        // Still being written.
      }
    }
    if (!token) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  if (!token) throw new Error('no verification mail')
  const verify = await context.request.post('/api/auth/verify-email/', { data: { token } })
  if (verify.status() !== 200) throw new Error(`verify: ${verify.status()}`)
  const state = await context.storageState()
  await context.close()
  return state.cookies
}

/** Counts the bytes the page receives (as they travel) from a mark on. */
async function throttle(context: BrowserContext, page: Page) {
  const cdp: CDPSession = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
  await cdp.send('Network.emulateNetworkConditions', SLOW_LINK)
  const meter = { bytes: 0, requests: 0, scripts: 0 }
  const scriptIds = new Set<string>()
  cdp.on('Network.responseReceived', (event) => {
    if (event.type === 'Script') scriptIds.add(event.requestId)
  })
  cdp.on('Network.loadingFinished', (event) => {
    meter.bytes += event.encodedDataLength
    meter.requests += 1
    if (scriptIds.has(event.requestId)) meter.scripts += 1
  })
  return {
    meter,
    reset() {
      meter.bytes = 0
      meter.requests = 0
      meter.scripts = 0
    },
  }
}

/**
 * The result on screen: the download link visible and every visible image of the result drawn (or complete).
 * A string, not a function: tsx wraps named inner functions in a helper that a page without JavaScript
 * (where no init script runs) does not have.
 */
const RESULT_STATE = `(() => {
  const done = document.querySelector('[data-testid="state-done"]')
  const link = done ? done.querySelector('[data-testid="download-link"]') : null
  const visible = (el) => (el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null)
  const images = done ? [...done.querySelectorAll('img')].filter(visible) : []
  const linkShown = Boolean(link && visible(link))
  return {
    shown: linkShown && images.length > 0 && images.every((img) => img.naturalWidth > 0),
    complete: linkShown && images.length > 0 && images.every((img) => img.complete && img.naturalWidth > 0),
    failed: Boolean(document.querySelector('[data-testid="state-failed"]')),
  }
})()`

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const seconds = (ms: number) => Math.round(ms / 10) / 100

interface RunFigure {
  tool: string
  flow: Flow
  rep: number
  shownMs: number
  completeMs: number | null
  kbUntilShown: number
  kbUntilComplete: number
  hydratedAtTap: boolean
}

async function runOnce(browser: Browser, tool: ToolCase, flow: Flow, file: Awaited<ReturnType<ToolCase['file']>>, cookies: Awaited<ReturnType<typeof accountCookies>> | null, rep: number): Promise<RunFigure> {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE_VIEWPORT, javaScriptEnabled: flow !== 'plain', hasTouch: true, isMobile: true })
  await context.addInitScript('globalThis.__name = (fn) => fn')
  if (tool.account && cookies) await context.addCookies(cookies)
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(WAIT_MS)
    const net = await throttle(context, page)
    const button = page.getByTestId('process-button')
    if (flow === 'early') {
      // The tap as soon as the button is there: the HTML has arrived, the scripts are still on their way.
      await page.goto(`/tools/${tool.slug}`, { waitUntil: 'commit' })
      await page.getByTestId('file-input').setInputFiles(file)
      await button.waitFor({ state: 'visible' })
    } else {
      await page.goto(`/tools/${tool.slug}`, { waitUntil: 'load' })
      if (flow === 'loaded') await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, { polling: 50 })
      await page.getByTestId('file-input').setInputFiles(file)
      // The browser's checks of the chosen file (type, size) end before the run can start.
      if (flow === 'loaded') await page.getByTestId('stage').and(page.locator('[data-phase="chosen"]')).waitFor()
    }
    const hydratedAtTap = (await page.evaluate(`document.documentElement.dataset.hydrated === 'true'`).catch(() => false)) as boolean
    net.reset()
    const tapped = Date.now()
    await button.tap({ noWaitAfter: true })
    let shownMs = 0
    let kbUntilShown = 0
    for (;;) {
      const state = (await page.evaluate(RESULT_STATE).catch(() => null)) as { shown: boolean; complete: boolean; failed: boolean } | null
      if (state?.shown && !shownMs) {
        shownMs = Date.now() - tapped
        kbUntilShown = net.meter.bytes / 1024
      }
      if (state?.complete) break
      if (shownMs && Date.now() - tapped - shownMs > COMPLETE_WAIT_MS) break
      if (Date.now() - tapped > WAIT_MS) throw new Error(`${tool.slug} ${flow}: no result in ${WAIT_MS} ms`)
      if (state?.failed) throw new Error(`${tool.slug} ${flow}: the run failed: ${await page.getByTestId('state-failed').innerText()}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    const completeMs = shownMs && Date.now() - tapped - shownMs > COMPLETE_WAIT_MS ? null : Date.now() - tapped
    return { tool: tool.slug, flow, rep, shownMs, completeMs, kbUntilShown: Math.round(kbUntilShown), kbUntilComplete: Math.round(net.meter.bytes / 1024), hydratedAtTap }
  } finally {
    await context.close()
  }
}

async function hydrateOnce(browser: Browser, pagePath: string) {
  const context = await browser.newContext({ baseURL: BASE, viewport: PHONE_VIEWPORT, hasTouch: true, isMobile: true })
  await context.addInitScript('globalThis.__name = (fn) => fn')
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(WAIT_MS)
    const net = await throttle(context, page)
    await page.goto(pagePath, { waitUntil: 'commit' })
    const handle = await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true' && performance.now(), undefined, { polling: 'raf' })
    const hydratedMs = (await handle.jsonValue()) as number
    await page.waitForLoadState('load')
    return { hydratedMs, scripts: net.meter.scripts, kb: Math.round(net.meter.bytes / 1024) }
  } finally {
    await context.close()
  }
}

export async function benchSlowLink() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-slow-link-'))
  // SLOW_LINK_RUNNING=1: a studio already serves BENCH_PORT (pages only: the converter's account needs our DATA_DIR).
  const studio = process.env.SLOW_LINK_RUNNING === '1' ? { stop: async () => {} } : await startStudio(dataDir)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] })
  const wantedTools = process.env.SLOW_LINK_TOOLS?.split(',').filter(Boolean)
  const tools = TOOL_CASES.filter((t) => !wantedTools || wantedTools.includes(t.slug))
  const loadBefore = os.loadavg()
  try {
    const cookies = tools.some((t) => t.account) ? await accountCookies(browser, dataDir) : null
    const runs: RunFigure[] = []
    for (const tool of tools) {
      const file = await tool.file()
      // Interleaved (plain, loaded, early, plain, ...): a change in the machine's load falls on every flow alike.
      for (let rep = 1; rep <= REPS; rep++) {
        for (const flow of FLOWS) {
          const figure = await runOnce(browser, tool, flow, file, cookies, rep).catch((error: Error) => {
            console.log(`${tool.slug} ${flow} #${rep}: ${error.message.split('\n')[0]}`)
            return null
          })
          if (!figure) continue
          console.log(`${tool.slug} ${flow} #${rep}: shown ${seconds(figure.shownMs)} s, complete ${figure.completeMs === null ? `> ${seconds(figure.shownMs + COMPLETE_WAIT_MS)}` : seconds(figure.completeMs)} s, ${figure.kbUntilShown}/${figure.kbUntilComplete} KB${flow === 'early' ? `, hydrated at tap: ${figure.hydratedAtTap}` : ''}`)
          runs.push(figure)
        }
      }
    }
    const toolRows = tools.filter((tool) => FLOWS.every((flow) => runs.some((r) => r.tool === tool.slug && r.flow === flow))).map((tool) => {
      const of = (flow: Flow) => runs.filter((r) => r.tool === tool.slug && r.flow === flow)
      const row: Record<string, unknown> = { tool: tool.slug }
      const plainShown = median(of('plain').map((r) => r.shownMs))
      for (const flow of FLOWS) {
        const shown = median(of(flow).map((r) => r.shownMs))
        row[`${flow} s`] = seconds(shown)
        row[`${flow} ×`] = Math.round((shown / plainShown) * 100) / 100
        // A run whose full load took over COMPLETE_WAIT_MS counts as that long (a lower bound).
        row[`${flow} complete s`] = seconds(median(of(flow).map((r) => r.completeMs ?? r.shownMs + COMPLETE_WAIT_MS)))
        row[`${flow} KB`] = Math.round(median(of(flow).map((r) => r.kbUntilShown)))
      }
      return row
    })
    console.table(toolRows)

    const pageRows: Array<{ page: string; hydrated: number; scripts: number; kb: number }> = []
    if (process.env.SLOW_LINK_PAGES !== '0') {
      for (const pagePath of DEFAULT_PAGES) {
        const samples = []
        for (let rep = 1; rep <= REPS; rep++) samples.push(await hydrateOnce(browser, pagePath))
        pageRows.push({
          page: pagePath,
          hydrated: seconds(median(samples.map((s) => s.hydratedMs))),
          scripts: median(samples.map((s) => s.scripts)),
          kb: median(samples.map((s) => s.kb)),
        })
        console.log(`${pagePath}: hydrated ${pageRows.at(-1)!.hydrated} s, ${pageRows.at(-1)!.scripts} scripts, ${pageRows.at(-1)!.kb} KB`)
      }
      console.table(pageRows)
    }
    const report = {
      build: process.env.BUILD_DIR ?? 'build',
      link: '400 kbit/s down and up, 400 ms latency, cache disabled',
      viewport: '360 × 740',
      reps: REPS,
      chromium: browser.version(),
      loadAverage: { before: loadBefore.map((n) => Math.round(n * 10) / 10), after: os.loadavg().map((n) => Math.round(n * 10) / 10) },
      tools: toolRows,
      pages: pageRows,
      slowestHydrationSeconds: pageRows.length ? Math.max(...pageRows.map((p) => p.hydrated)) : null,
      runs,
    }
    const dir = path.resolve('test-results/bench-slow-link')
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `slow-link-${(process.env.BUILD_DIR ?? 'build').replace(/\W/g, '_')}-${PORT}.json`), JSON.stringify(report, null, 2))
    return report
  } finally {
    await browser.close()
    await studio.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

runAsScript(import.meta.url, benchSlowLink)
