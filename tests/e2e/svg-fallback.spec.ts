// Every valid SVG converts (decision 164): the fixture that crashes resvg is drawn by librsvg, the
// page says so under its download, and the badge reads "ready", with JavaScript and without.
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'
import { clickDownload, fixture, isNoJs, screenshots, signInNewUser } from './support/tools'

test('SVG converter: a file resvg cannot draw converts, and the page says librsvg drew it', async ({ page }, info) => {
  await signInNewUser(page)
  await page.goto('/tools/svg-converter')
  await expect(page.getByRole('heading', { level: 1, name: 'SVG converter' })).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('svg/openclipart-digital-camera-gradients.svg'))
  await page.getByLabel('Export format').selectOption('png')
  await page.getByTestId('process-button').click()
  // A crashed renderer is replaced and librsvg draws: a few seconds on a busy machine; the answer ends the wait.
  await expect(page.getByTestId('download-box')).toContainText('Export ready', UNTIL_TEST_TIMEOUT)
  await expect(page.getByTestId('renderer-note')).toHaveText('Drawn by librsvg: resvg, the usual SVG renderer, could not draw this file.')
  if (!isNoJs(info)) await expect(page.getByTestId('status-badge')).toHaveText(/ready/)
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file).toMatchObject({ name: 'openclipart-digital-camera-gradients.png', format: 'png', width: 407, height: 207 })
  await screenshots(page, info, 'svg-converter-librsvg')
})
