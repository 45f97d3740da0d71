// History (issue 21 item 2), with JavaScript and without it, at 360 and 1280 pixels: a guest runs a
// tool, finds the run in history (thumbnail, tool, file, size, charge, state, download) from the
// header at 1280 and the menu at 360, creates an account from there, verifies it in the same
// browser, and still finds the run and its result, now the account's.
import type { Page } from '@playwright/test'
import { fixture, isNoJs, picture, readDownload, waitForVerificationLink } from './support/tools'
import { expectAccessible } from './support/workspace'
import { expect, test } from './support/test'

const PASSWORD = 'correct horse battery staple 42'
const FILE = 'product-router-alpha-groundtruth.png'

async function openHistory(page: Page, width: 360 | 1280) {
  await page.setViewportSize({ width, height: 800 })
  if (width === 360) {
    await page.getByTestId('mobile-menu').locator('summary').click()
    await page.getByTestId('mobile-menu-panel').getByRole('link', { name: 'History', exact: true }).click()
  } else {
    await page.getByTestId('site-header').getByRole('link', { name: 'History', exact: true }).click()
  }
  await expect(page).toHaveURL(/\/history$/)
  await expect(page.getByRole('heading', { level: 1, name: 'History' })).toBeVisible()
}

/** The run's entry: its words, and a thumbnail the server made (160 px at most), never the full image. */
async function expectRunListed(page: Page) {
  const run = page.getByTestId('history-run').filter({ hasText: FILE })
  await expect(run).toHaveCount(1)
  await expect(run).toContainText('Background remover')
  await expect(run).toContainText(/MB · 220×203/)
  await expect(run).toContainText('1 credit')
  await expect(run).toContainText('Done')
  const thumbnail = run.locator('img')
  await expect(thumbnail).toHaveAttribute('src', /^\/api\/results\/[0-9a-f-]{36}\/thumbnail$/)
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0)
  expect(await thumbnail.evaluate((img: HTMLImageElement) => Math.max(img.naturalWidth, img.naturalHeight))).toBeLessThanOrEqual(160)
  return run
}

test('a guest finds their run in history, signs up, and still finds it there', async ({ page }, info) => {
  // A long journey (a run, two widths, two downloads, axe, a sign-up): generous for a loaded machine.
  test.setTimeout(300_000)
  await page.goto('/tools/background-remover')
  await page.getByTestId('file-input').setInputFiles(fixture(`photos/${FILE}`))
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Cutout ready', { timeout: 60_000 })

  for (const width of [360, 1280] as const) {
    await openHistory(page, width)
    const run = await expectRunListed(page)
    if (width === 360) {
      const scrollWidth = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0)
      expect(scrollWidth, 'history scrolls sideways at 360 px').toBeLessThanOrEqual(360)
    }
    const [download] = await Promise.all([page.waitForEvent('download'), run.getByRole('link', { name: `Download the result of ${FILE}` }).click()])
    expect(await readDownload(download)).toMatchObject({ format: 'png', width: 220, height: 203 })
  }
  await expectAccessible(page, 'history')

  // From history to an account, in this browser.
  const email = `kept-${info.project.name}-${Date.now()}@example.com`
  await page.getByTestId('history-keep').getByRole('link', { name: 'Create an account' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible()
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByTestId('check-email')).toContainText('Check your email')
  const link = await waitForVerificationLink(email)
  await page.goto(link.pathname + link.search)
  if (isNoJs(info)) await page.getByRole('button', { name: 'Confirm my email' }).click()
  // The sign-up started from history: verified and signed in, the browser is back there.
  await expect(page).toHaveURL(/\/history$/, { timeout: 60_000 })
  await expect(page.getByTestId('dashboard-button')).toBeVisible()
  await expectRunListed(page)

  for (const width of [1280, 360] as const) {
    await page.goto('/')
    await openHistory(page, width)
    await expectRunListed(page)
    // An account is not offered an account.
    await expect(page.getByTestId('history-keep')).toHaveCount(0)
  }
  await picture(page, `history-${info.project.name}-360`, { fullPage: true })
})

test('history with nothing in it says so and offers a tool', async ({ page }) => {
  await page.goto('/history')
  await expect(page.getByText('No runs in the last 24 hours.')).toBeVisible()
  await expect(page.getByRole('main').getByRole('link', { name: 'Remove a background' })).toHaveAttribute('href', '/tools/background-remover')
})
