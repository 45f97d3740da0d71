// The `test` every journey uses: Playwright's, plus a guard that fails any test during which the
// page reported a Content-Security-Policy violation (the server's CSP must hold on every screen).
// The guard rides on the `page` fixture, so a test without a page (requests, processes) opens no
// browser page at all.
import { expect, test as base } from '@playwright/test'
import { closeTwin } from './workspace'

export const test = base.extend({
  page: async ({ page }, use) => {
    const violations: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
    })
    await use(page)
    await closeTwin(page)
    expect(violations, 'Content-Security-Policy violations').toEqual([])
  },
})

/**
 * For a wait on real work (a model run, a batch, a server starting): no limit of its own, so the test's
 * timeout is the one limit. A fixed 45 s inside a 60 s test failed on a busy machine while the work
 * was still going; the signal waited on (an attribute, a heading, a URL) is what ends the wait.
 */
export const UNTIL_TEST_TIMEOUT = { timeout: 0 } as const

export { expect }
