// The remover's output options on its screen, with JavaScript and without: open "More output
// options", crop to the subject, ask for WebP, and download a cropped WebP named for what it is.
import { clickDownload, fixture, isNoJs } from './support/tools'
import { expect, test } from './support/test'

test('background remover: a cropped WebP from the output options', async ({ page }, info) => {
  await page.goto('/tools/background-remover')
  await expect(page.getByRole('heading', { level: 1, name: 'Background remover' })).toBeVisible()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-gameboy-white-bg.jpg'))
  await page.getByText('More output options').click()
  await page.getByLabel('Crop to the subject').check()
  await page.getByLabel('Margin').fill('4px')
  await page.getByLabel('File type').selectOption('webp')
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Cutout ready')
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file.name).toBe('background-removed.webp')
  expect(file.format).toBe('webp')
  // The Game Boy photo is 989 × 1200 with white all round (the router's photo has none since its antennas are
  // kept to the top edge, decision 159): cropped with a 4 px margin, it is smaller both ways.
  expect(file.width!).toBeLessThan(989)
  expect(file.height!).toBeLessThan(1200)
})
