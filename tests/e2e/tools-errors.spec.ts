// What a tool page does with bad input and refused runs. With JavaScript the file is checked in the
// browser before any upload (its real type from its bytes, the tool's size limit) and refused in the
// drop target; without it the server checks the same and its answer shows in the failed panel.
// The workspace states themselves (no credits, no face, failed, sign-in) are in workspace.spec.ts.
import { readFile } from 'node:fs/promises'
import { type Page, type TestInfo } from '@playwright/test'
import { expect, test } from './support/test'
import { fixture, isNoJs } from './support/tools'

async function open(page: Page, info: TestInfo, path: string) {
  await page.goto(path)
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
}

test('a file of the wrong type is refused, and nothing is charged', async ({ page }, info) => {
  await open(page, info, '/tools/background-remover')
  const notes = { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain text, not a picture') }
  await page.getByTestId('file-input').setInputFiles(notes)
  if (isNoJs(info)) {
    await page.getByTestId('process-button').click()
    // A refused file is not a failed run: the drop target says what is wrong with it, and the balance stands.
    await expect(page.getByTestId('error-box')).toHaveText("This file can't be used: invalid file type. Upload a PNG, JPG or WebP image.")
    await expect(page.getByText('The run failed')).toHaveCount(0)
    await expect(page.getByRole('link', { name: '5 credits' })).toBeVisible()
    await expect(page.getByTestId('download-box')).toHaveCount(0)
    return
  }
  const uploads: string[] = []
  page.on('request', (request) => request.method() === 'POST' && uploads.push(request.url()))
  await expect(page.getByTestId('error-box')).toHaveText(/^Invalid file type: /)
  await expect(page.getByTestId('process-button')).toBeDisabled()
  expect(uploads).toEqual([])
})

test('a file over the tool limit is refused', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: front.spec.ts follows the no-JS refusal, read from Content-Length before the body.
  await open(page, info, '/tools/face-blurrer')
  // A real PNG header followed by padding: 16 MB, over the blurrer's 15 MB.
  const png = await readFile(fixture('photos/group-nasa-astronaut-class-2.png'))
  const big = { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.concat([png, Buffer.alloc(16 * 1024 * 1024 - png.length)]) }
  await page.getByTestId('file-input').setInputFiles(big)
  await expect(page.getByTestId('error-box')).toHaveText('File too large (max 15MB): this file is 16.00 MB.')
  await expect(page.getByTestId('file-summary')).toHaveCount(0)
})
