// Helpers for the workspace's visual and accessibility checks: the two screen sizes of issue 13, an
// axe-core pass that fails on any serious or critical violation, and screenshots compared with the
// committed baselines (toHaveScreenshot), with what varies from run to run hidden or masked.
import path from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Locator, type Page, type Route } from '@playwright/test'

export const SIZES = [
  { name: 'phone', width: 360, height: 740 },
  { name: 'desktop', width: 1280, height: 800 },
] as const
export type Size = (typeof SIZES)[number]

const SCREENSHOT_STYLE = path.resolve('tests/e2e/support/screenshot.css')

/** No serious or critical axe-core violation on the page as it is now. axe-core runs as script in
 * the page: for the no-JS project the page's HTML (without its scripts, so it stays exactly as the
 * server drew it) is checked in a scripted twin at the same address and size. */
export async function expectAccessible(page: Page, label: string) {
  let target = page
  let twin: Page | null = null
  if (test.info().project.use.javaScriptEnabled === false) {
    const html = (await page.content()).replace(/<script\b[\s\S]*?<\/script>/gi, '')
    const browser = page.context().browser()!
    // Test contexts inherit the project's options: scripting is switched back on explicitly.
    const context = await browser.newContext({ viewport: page.viewportSize(), javaScriptEnabled: true })
    twin = await context.newPage()
    // The same address answers the captured HTML; its stylesheets and images come from the server.
    const address = page.url()
    await twin.route((url) => url.toString() === address, (route) => route.fulfill({ body: html, contentType: 'text/html' }))
    await twin.goto(address)
    target = twin
  }
  // Legacy mode: axe.run in the page itself. The default gathers partial results and finishes them in a blank
  // page it opens for each check, which made every check two to three times as long with the same findings
  // (measured on /, /about, /api and a tool page); the studio has no frames, which is what that mode is for.
  // Only violations are gathered in full: passes are not read, and their nodes were most of what came back.
  const results = await new AxeBuilder({ page: target })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .options({ resultTypes: ['violations'] })
    .setLegacyMode()
    .analyze()
  if (twin) await twin.context().close()
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
