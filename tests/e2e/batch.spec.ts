// The batch screen (issue 12), with JavaScript and without it: many files and one tool in a plain
// multiple-file form, then a status page that refreshes itself until every file has run, each
// file's outcome, and "Download all" giving a zip of the results with errors.json for the failed one.
import { readFileSync } from 'node:fs'
import { fixture } from './support/tools'
import { expect, test } from './support/test'

test('a batch of three images, one broken, runs to the end and downloads as one zip', async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto('/tools/batch')
  await page.getByLabel('Tool').selectOption('background-remover')
  const broken = readFileSync(fixture('photos/noface-coffee.png')).subarray(0, 5000)
  await page.getByLabel(/^Images/).setInputFiles([
    { name: 'noface-rocket.jpg', mimeType: 'image/jpeg', buffer: readFileSync(fixture('photos/noface-rocket.jpg')) },
    { name: 'product-gameboy-white-bg.jpg', mimeType: 'image/jpeg', buffer: readFileSync(fixture('photos/product-gameboy-white-bg.jpg')) },
    { name: 'broken.png', mimeType: 'image/png', buffer: broken },
  ])
  await page.getByRole('button', { name: 'Run the batch' }).click()
  await expect(page).toHaveURL(/[?&]batch=[0-9a-f-]{36}/, { timeout: 30_000 })
  await expect(page.getByRole('heading', { name: /Batch complete: 2 done, 1 failed, 3 in all/ })).toBeVisible({ timeout: 90_000 })
  const files = page.getByRole('list', { name: 'Files' }).getByRole('listitem')
  await expect(files).toHaveCount(3)
  await expect(files.nth(0)).toContainText('noface-rocket.jpg')
  await expect(files.nth(0)).toContainText('Done')
  await expect(files.nth(2)).toContainText(/Failed: .*damaged or truncated/)

  const href = await page.getByRole('link', { name: 'Download all' }).getAttribute('href')
  const zip = await page.request.get(href!)
  expect(zip.status()).toBe(200)
  expect(zip.headers()['content-type']).toBe('application/zip')
  const body = (await zip.body()).toString('latin1')
  for (const name of ['noface-rocket.png', 'product-gameboy-white-bg.png', 'errors.json']) expect(body).toContain(name)
})

test('a batch the balance cannot pay is refused with how many files it covers', async ({ page }) => {
  await page.goto('/tools/batch')
  await page.getByLabel('Tool').selectOption('face-restorer') // 2 credits each; a visitor has 5
  await page.getByLabel(/^Images/).setInputFiles([
    fixture('photos/portrait-astronaut.png'),
    fixture('photos/degraded-face-crop-64px.jpg'),
    fixture('photos/degraded-face-astronaut-128px-q35.jpg'),
  ])
  await page.getByRole('button', { name: 'Run the batch' }).click()
  await expect(page.getByRole('alert')).toContainText(/Not enough credits: this batch of 3 files costs 6 credits and your balance of 5 covers 2 of them\./)
})
