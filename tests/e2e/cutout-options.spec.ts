// The remover's output options on its screen, with JavaScript and without: open "More output
// options", crop to the subject, ask for WebP, and download a cropped WebP named for what it is.
import { clickDownload, fixture, isNoJs } from './support/tools'
import { expect, test } from './support/test'

test('background remover: a cropped WebP from the output options', async ({ page }, info) => {
  await page.goto('/tools/background-remover')
  await expect(page.getByRole('heading', { level: 1, name: 'Background remover' })).toBeVisible()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await page.getByText('More output options').click()
  await page.getByLabel('Crop to the subject').check()
  await page.getByLabel('Margin').fill('4px')
  await page.getByLabel('File type').selectOption('webp')
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Cutout ready')
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file.name).toBe('background-removed.webp')
  expect(file.format).toBe('webp')
  // The router photo is 220 × 203 with room around the router: cropped, it is smaller.
  expect(file.width! < 220 || file.height! < 203).toBe(true)
})
