// What a tool page does with bad input and refused runs: with JavaScript the file picker's own alerts
// and the server's answer in the red box (plus a toast); without it the server's answer in the box.
import { readFile } from 'node:fs/promises'
import { type Page, type TestInfo } from '@playwright/test'
import { expect, test } from './support/test'
import { fixture, isNoJs, screenshots, spendVisitorCredits } from './support/tools'

async function open(page: Page, info: TestInfo, path: string) {
  await page.goto(path)
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
}

/** Collects alert texts (and accepts them) while `act` runs. */
async function alertsDuring(page: Page, act: () => Promise<void>): Promise<string[]> {
  const seen: string[] = []
  const onDialog = (dialog: import('@playwright/test').Dialog) => {
    seen.push(dialog.message())
    void dialog.accept()
  }
  page.on('dialog', onDialog)
  await act()
  await expect.poll(() => seen.length).toBeGreaterThan(0)
  page.off('dialog', onDialog)
  return seen
}

test('a file of the wrong type is refused', async ({ page }, info) => {
  await open(page, info, '/tools/background-remover')
  const notes = { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain text, not a picture') }
  if (isNoJs(info)) {
    await page.getByTestId('file-input').setInputFiles(notes)
    await page.getByTestId('process-button').click()
    await expect(page.getByTestId('error-box')).toBeVisible()
    await expect(page.getByTestId('download-box')).toHaveCount(0)
    return
  }
  const alerts = await alertsDuring(page, () => page.getByTestId('file-input').setInputFiles(notes))
  expect(alerts).toEqual(['Invalid file type'])
  await expect(page.getByTestId('error-box')).toHaveText('Invalid file type')
  await expect(page.getByTestId('process-button')).toBeDisabled()
})

test('a file over the tool limit is refused', async ({ page }, info) => {
  await open(page, info, '/tools/face-blurrer')
  // A real PNG header followed by padding: 16 MB, over the blurrer's 15 MB.
  const png = await readFile(fixture('photos/group-nasa-astronaut-class-2.png'))
  const big = { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.concat([png, Buffer.alloc(16 * 1024 * 1024 - png.length)]) }
  if (isNoJs(info)) {
    await page.getByTestId('file-input').setInputFiles(big)
    await page.getByTestId('process-button').click()
    await expect(page.getByTestId('error-box')).toContainText(/15\s?MB/)
    return
  }
  const alerts = await alertsDuring(page, () => page.getByTestId('file-input').setInputFiles(big))
  expect(alerts).toEqual(['File too large (max 15MB)'])
  await expect(page.getByTestId('file-summary')).toHaveCount(0)
})

test('a visitor who spent the guest balance is told, and charged nothing', async ({ page }, info) => {
  await open(page, info, '/tools/background-remover')
  await spendVisitorCredits(page)
  await page.reload()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('error-box')).toContainText('Not enough credits')
  await expect(page.getByTestId('download-box')).toHaveCount(0)
  await expect(page.getByTestId('credits-remaining')).toContainText('0')
  await expect(page.getByTestId('status-badge')).toHaveText(/Error/)
  if (!isNoJs(info)) await expect(page.getByText('Processing failed', { exact: true }).first()).toBeVisible()
  await screenshots(page, info, 'out-of-credits')
})

test('a visitor is asked to sign in before converting an SVG', async ({ page }, info) => {
  await open(page, info, '/tools/svg-converter')
  await page.getByTestId('file-input').setInputFiles(fixture('svg/tango-user-home.svg'))
  const runs: string[] = []
  page.on('request', (request) => request.method() === 'POST' && request.url().includes('/api/jobs/') && runs.push(request.url()))
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('error-box')).toContainText('Sign in with a Facet Studio account to convert SVG files.')
  await expect(page.getByTestId('error-box').getByRole('link')).toHaveAttribute('href', '/login?from=/tools/svg-converter')
  if (!isNoJs(info)) {
    await expect(page.getByText('Authentication required')).toBeVisible()
    expect(runs).toEqual([])
  }
  await screenshots(page, info, 'svg-visitor')
})
