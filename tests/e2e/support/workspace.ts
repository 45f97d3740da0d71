// Helpers for the workspace's visual and accessibility checks: the two screen sizes of issue 13, an
// axe-core pass that fails on any serious or critical violation, and screenshots compared with the
// committed baselines (toHaveScreenshot), with what varies from run to run hidden or masked.
import path from 'node:path'
import axe from 'axe-core'
import { expect, test, type Locator, type Page, type Route } from '@playwright/test'

export const SIZES = [
  { name: 'phone', width: 360, height: 740 },
  { name: 'desktop', width: 1280, height: 800 },
] as const
export type Size = (typeof SIZES)[number]

const SCREENSHOT_STYLE = path.resolve('tests/e2e/support/screenshot.css')

/** The no-JS project's pages' scripted twins: one per test (a new context for each check was most of a
 * check's time), in a context of its own with scripting on. */
const twins = new WeakMap<Page, Promise<Page>>()

function twinOf(page: Page): Promise<Page> {
  let twin = twins.get(page)
  if (!twin) {
    twin = (async () => {
      // Test contexts inherit the project's options: scripting is switched back on explicitly.
      const context = await page.context().browser()!.newContext({ viewport: page.viewportSize(), javaScriptEnabled: true })
      return context.newPage()
    })()
    twins.set(page, twin)
  }
  return twin
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The twin's loads of `address` answer `html`; its stylesheets and images come from the server. The route
 * names the one address: a function matcher would make the browser hand every request of the twin (each
 * stylesheet, image and font) to the test process and wait for its answer. */
async function serveAt(twin: Page, address: string, html: string) {
  await twin.unrouteAll()
  await twin.route(new RegExp(`^${escapeRegExp(address)}$`), (route) => route.fulfill({ body: html, contentType: 'text/html' }))
}

/** Closes the page's twin, if a check made one: at the end of its test (the `page` fixture, support/test.ts). */
export async function closeTwin(page: Page) {
  const twin = twins.get(page)
  if (!twin) return
  twins.delete(page)
  await (await twin).context().close()
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']

/** axe-core's own `axe.run`, in the page, with axe injected once per document (decision 152). Compared with
 * @axe-core/playwright's builder: its default mode finishes every check in a new blank page (for cross-origin
 * frames; the studio has none) and its legacy mode injects axe's 500 kB script twice per check, which was
 * about half of a check's time. A page whose state changes without a new document (the JS project's
 * workspace) keeps axe loaded from one check to the next. Only violations are gathered in full: passes are
 * not read, and their nodes were most of what came back. */
async function runAxe(page: Page): Promise<axe.AxeResults> {
  const loaded = await page.evaluate(() => 'axe' in window)
  if (!loaded) await page.evaluate(axe.source)
  return page.evaluate(
    (options) => (window as unknown as { axe: typeof axe }).axe.run(document, options),
    { runOnly: { type: 'tag', values: AXE_TAGS }, resultTypes: ['violations'] } satisfies axe.RunOptions,
  )
}

/** No serious or critical axe-core violation on the page as it is now. axe-core runs as script in
 * the page: for the no-JS project the page's HTML (without its scripts, so it stays exactly as the
 * server drew it) is checked in a scripted twin at the same address and size. */
export async function expectAccessible(page: Page, label: string) {
  let target = page
  if (test.info().project.use.javaScriptEnabled === false) {
    const twin = await twinOf(page)
    const address = new URL(page.url())
    address.hash = ''
    await serveAt(twin, address.toString(), (await page.content()).replace(/<script\b[\s\S]*?<\/script>/gi, ''))
    await twin.setViewportSize(page.viewportSize()!)
    // Through a blank page: the same address again (another state of one page) is then a new load, not a
    // navigation within the document.
    await twin.goto('about:blank')
    await twin.goto(page.url())
    target = twin
  }
  const results = await runAxe(target)
  const blocking = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`)
  expect(blocking, `axe-core on ${label}`).toEqual([])
}

/** Until the chosen file's preview has loaded and so has its size (what follows it on the page stops moving). */
export async function untilPreviewShown(page: Page) {
  await expect.poll(() => page.getByTestId('upload-preview').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true)
}

/** The visual baseline of what the screen shows now (not the whole page), plus the axe pass. */
export async function expectState(page: Page, name: string, options: { mask?: Locator[] } = {}) {
  await expectAccessible(page, name)
  await page.evaluate(() => document.fonts.ready)
  await expect(page).toHaveScreenshot(`${name}.png`, {
    animations: 'disabled',
    caret: 'hide',
    stylePath: SCREENSHOT_STYLE,
    mask: options.mask,
    maxDiffPixelRatio: 0.01,
  })
}

/** Holds the next tool POST until release() is called: the processing state can then be looked at
 * for as long as needed, and the run itself is the server's real one. */
export async function holdToolRequest(page: Page) {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let seen!: () => void
  const arrived = new Promise<void>((resolve) => (seen = resolve))
  const handler = async (route: Route) => {
    if (route.request().method() !== 'POST') return route.continue()
    seen()
    await released
    await route.continue()
  }
  await page.route(/\/api\/.+/, handler)
  return {
    arrived,
    // The route stays: later requests pass straight through once released.
    release: () => release(),
  }
}
