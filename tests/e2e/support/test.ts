// The `test` every journey uses: Playwright's, plus
// - a guard that fails any test during which the page reported a Content-Security-Policy violation (the
//   server's CSP must hold on every screen);
// - with JavaScript on, `goto` and `reload` that return once the page is hydrated (`waitForHydration`).
// Both ride on the `page` fixture, so a test without a page (requests, processes) opens no browser page.
import { expect, test as base, type Page, type Response } from '@playwright/test'
import { closeTwin } from './workspace'

export const test = base.extend({
  page: async ({ page, javaScriptEnabled }, use) => {
    const violations: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
    })
    if (javaScriptEnabled) awaitHydrationOnNavigation(page)
    await use(page)
    await closeTwin(page)
    expect(violations, 'Content-Security-Policy violations').toEqual([])
  },
})

/**
 * Until a page is hydrated its links and buttons do what they do without JavaScript: a click that lands
 * before hydration follows the link instead of opening the dialog, and a navigation that comes before it
 * cuts short what hydration would have done (the 404 page's console line). Both failed journeys on a
 * busy machine. The root layout marks <html data-hydrated> once every effect has run (app/root.tsx).
 */
async function waitForHydration(page: Page) {
  await expect(page.locator('html[data-hydrated]'), 'the page hydrated').toBeAttached({ timeout: 30_000 })
}

/**
 * Makes `page.goto` and `page.reload` return once the page is hydrated. The `page` fixture does it with
 * JavaScript on; a page a test opens in a context of its own (a second person) calls it itself. A page
 * that is not the studio's HTML (JSON, an image, an empty answer) has nothing to hydrate.
 */
export function awaitHydrationOnNavigation(page: Page) {
  const goto = page.goto.bind(page)
  const reload = page.reload.bind(page)
  const settle = async (response: Response | null) => {
    if (response && /^text\/html\b/.test(response.headers()['content-type'] ?? '')) await waitForHydration(page)
    return response
  }
  page.goto = async (...args) => settle(await goto(...args))
  page.reload = async (...args) => settle(await reload(...args))
}

/**
 * For a wait on real work (a model run, a batch, a server starting): no limit of its own, so the test's
 * timeout is the one limit. A fixed 45 s inside a 60 s test failed on a busy machine while the work
 * was still going; the signal waited on (an attribute, a heading, a URL) is what ends the wait.
 */
export const UNTIL_TEST_TIMEOUT = { timeout: 0 } as const

export { expect }
