// Issue 34, item 1, in a browser without JavaScript: a real 13 MB phone photo posted to the background
// remover's page (12 MB) gets the page again with its own error and status 413, not the browser's
// network-error page. The body is within what the form may weigh (a photo and a background image),
// so the server reads it until the photo passes 12 MB, answers, and discards the rest (decision 161).
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { MEGABYTE } from '../../app/catalog/tools'
import { photoOfSize } from '../support/photo-sizes'
import { expect, test } from './support/test'

test('without JavaScript a 13 MB photo to the remover page gets the page with its 413, not a reset', { tag: '@no-js-only' }, async ({ page }, info) => {
  await page.goto('/tools/background-remover')
  await expect(page.getByRole('heading', { level: 1, name: 'Background remover' })).toBeVisible()
  // The browser reads the file from disk, as a person's upload.
  const photo = path.resolve(info.outputDir, 'phone-photo.jpg')
  await mkdir(info.outputDir, { recursive: true })
  await writeFile(photo, await photoOfSize(13 * MEGABYTE))
  await page.getByTestId('file-input').setInputFiles(photo)
  const answer = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/tools/background-remover'))
  await page.getByTestId('process-button').click()
  expect((await answer).status()).toBe(413)
  await expect(page.getByTestId('stage')).toHaveAttribute('data-phase', 'rejected')
  await expect(page.getByTestId('error-box')).toHaveText("This file can't be used: file too large (max 12MB).")
})
