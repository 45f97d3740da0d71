// The `test` every journey uses: Playwright's, plus a guard that fails any test during which the
// page reported a Content-Security-Policy violation (the server's CSP must hold on every screen).
import { expect, test as base } from '@playwright/test'

export const test = base.extend<{ cspGuard: void }>({
  cspGuard: [
    async ({ page }, use) => {
      const violations: string[] = []
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
      })
      await use()
      expect(violations, 'Content-Security-Policy violations').toEqual([])
    },
    { auto: true },
  ],
})

export { expect }
