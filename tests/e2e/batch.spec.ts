// The batch screen (issue 12), with JavaScript and without it. The tool first (a link each), then
// many files and that tool's own options; without JavaScript a plain multiple-file form and a status
// page that refreshes itself, with it a checked file list, an upload, and the batch followed in the
// background. Each journey downloads the zip and reads the names in it.
import { readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import yauzl from 'yauzl'
import { fixture, isNoJs, screenshots, signInNewUser } from './support/tools'
import { expectAccessible } from './support/workspace'
import { NO_MODELS_PORT } from '../../playwright.config'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'

function zipNames(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error)
      const names: string[] = []
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName)
        zip.readEntry()
      })
      zip.on('end', () => resolve(names.sort()))
      zip.on('error', reject)
      zip.readEntry()
    }),
  )
}

/** A fixture as a file payload (setInputFiles takes paths or payloads, not both at once). */
function payload(name: string, mimeType: string) {
  return { name: name.split('/').pop()!, mimeType, buffer: readFileSync(fixture(name)) }
}

async function chooseTool(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Tool' }).getByRole('link', { name }).click()
  await expect(page.getByRole('navigation', { name: 'Tool' }).getByRole('link', { name })).toHaveAttribute('aria-current', 'page')
}

/** Follows the batch to its end (the page refreshes itself without JavaScript, polls with it). */
async function untilComplete(page: Page, heading: RegExp) {
  await expect(page).toHaveURL(/[?&]batch=[0-9a-f-]{36}/, { timeout: 30_000 })
  await expect(page.getByRole('heading', { name: heading })).toBeVisible(UNTIL_TEST_TIMEOUT)
}

async function downloadAll(page: Page): Promise<string[]> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download all' }).click()])
  return zipNames(readFileSync(await download.path()))
}

test('background remover: three files, one broken, each file followed to its end, then one zip', async ({ page }, info) => {
  test.setTimeout(120_000)
  await page.goto('/tools/batch')
  await chooseTool(page, 'Background remover')
  // A non-default option, posted under the API's own name.
  await page.getByRole('radio', { name: 'Black' }).check({ force: true })
  const broken = readFileSync(fixture('photos/noface-coffee.png')).subarray(0, 5000)
  await page.getByLabel('Choose images').setInputFiles([
    payload('photos/noface-rocket.jpg', 'image/jpeg'),
    payload('photos/product-gameboy-white-bg.jpg', 'image/jpeg'),
    { name: 'broken.png', mimeType: 'image/png', buffer: broken },
  ])
  if (!isNoJs(info)) {
    // Listed with their sizes and a remove button, the totals against the batch's limits.
    const chosen = page.getByRole('list', { name: 'Chosen files' }).getByRole('listitem')
    await expect(chosen).toHaveCount(3)
    await expect(chosen.nth(0)).toContainText('noface-rocket.jpg')
    await expect(chosen.nth(0)).toContainText(/0\.\d\d MB · Ready/)
    await expect(page.getByTestId('batch-totals')).toContainText('3 of 100 files')
    await expect(page.getByTestId('tool-cost')).toHaveText('1 credit per file · 3 credits in all')
    await screenshots(page, info, 'batch-chosen')
    await expectAccessible(page, 'batch files chosen')
    // The page is never reloaded while the batch is followed.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true))
  } else {
    await screenshots(page, info, 'batch-form')
    await expectAccessible(page, 'batch form')
  }
  await page.getByRole('button', { name: 'Run the batch' }).click()
  await expect(page).toHaveURL(/[?&]batch=[0-9a-f-]{36}/, { timeout: 30_000 })
  // The status replaced the form: focus is on its heading, for a screen reader to read it.
  if (!isNoJs(info)) await expect(page.getByRole('heading', { level: 2, name: /^Batch (running|complete)/ })).toBeFocused()
  await screenshots(page, info, 'batch-following', { selfRefreshing: isNoJs(info) })
  // Progress per file, whatever point the batch has reached.
  const files = page.getByRole('list', { name: 'Files' }).getByRole('listitem')
  await expect(files).toHaveCount(3)
  await expect(page.getByRole('progressbar', { name: 'noface-rocket.jpg progress' })).toBeVisible()
  await expect(page.getByRole('heading', { name: /^Batch (running|complete): \d done, \d failed, 3 in all$/ })).toBeVisible()
  await untilComplete(page, /Batch complete: 2 done, 1 failed, 3 in all/)
  await expect(page.getByRole('progressbar', { name: 'noface-rocket.jpg progress' })).toHaveAttribute('aria-valuenow', '100')
  await expect(files.nth(0)).toContainText('Done')
  await expect(files.nth(0).getByRole('link', { name: 'Download the result of noface-rocket.jpg' })).toBeVisible()
  // A thumbnail grid: each result's picture is the server's small one, never the full image scaled down.
  const thumbnail = files.nth(0).locator('img')
  await expect(thumbnail).toHaveAttribute('src', /^\/api\/results\/[0-9a-f-]{36}\/thumbnail$/)
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0)
  expect(await thumbnail.evaluate((img: HTMLImageElement) => Math.max(img.naturalWidth, img.naturalHeight))).toBeLessThanOrEqual(160)
  await expect(files.nth(2).locator('img')).toHaveCount(0)
  await expect(files.nth(2)).toContainText(/Failed: .*damaged or truncated/)
  if (!isNoJs(info)) expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
  // An ended batch's page no longer refreshes itself.
  expect(await page.content()).not.toMatch(/http-equiv="refresh"/i)
  await screenshots(page, info, 'batch-complete')
  await expectAccessible(page, 'batch complete')

  // One result on its own, then all of them.
  const one = await page.request.get((await files.nth(0).getByRole('link', { name: /^Download the result/ }).getAttribute('href'))!)
  expect(one.status()).toBe(200)
  // On black the cutouts are opaque, so they follow their JPEG uploads (decision 173).
  expect(one.headers()['content-type']).toBe('image/jpeg')
  expect(await downloadAll(page)).toEqual(['errors.json', 'manifest.json', 'noface-rocket.jpg', 'product-gameboy-white-bg.jpg'])

  // A reload, or a later visit, shows the batch where it is; another browser gets nothing.
  await page.reload()
  await expect(page.getByRole('heading', { name: /Batch complete: 2 done, 1 failed/ })).toBeVisible()
  const stranger = await page.context().browser()!.newPage()
  await stranger.goto(page.url())
  await expect(stranger.getByRole('alert')).toContainText('No such batch')
  await stranger.close()
})

test('SVG converter: two SVGs to WebP at 2×, a PNG refused, one zip of .webp files', async ({ page }, info) => {
  test.setTimeout(120_000)
  await signInNewUser(page)
  await page.goto('/tools/batch?tool=svg-converter')
  await expect(page.getByRole('heading', { name: 'SVG converter options' })).toBeVisible()
  await page.getByLabel('Export format').selectOption('webp')
  await page.getByLabel('Scale').selectOption('2')
  const svgs = [fixture('svg/openclipart-stopwatch.svg'), fixture('svg/tango-user-home.svg')]
  if (!isNoJs(info)) {
    // Only files that fit the tool are taken: a PNG is listed as not sent, with the workspace's words.
    await page.getByLabel('Choose SVG files').setInputFiles([...svgs, fixture('photos/noface-rocket.jpg')])
    const refused = page.getByRole('list', { name: 'Chosen files' }).getByRole('listitem').filter({ hasText: 'noface-rocket.jpg' })
    await expect(refused).toContainText('Not sent: Invalid file type: this is a JPG image. Choose an SVG file.')
    await expect(page.getByTestId('batch-totals')).toContainText('2 of 100 files')
    await screenshots(page, info, 'batch-svg-refused')
    await refused.getByRole('button', { name: /Remove/ }).click()
    await expect(page.getByRole('list', { name: 'Chosen files' }).getByRole('listitem')).toHaveCount(2)
  } else {
    await page.getByLabel('Choose SVG files').setInputFiles(svgs)
  }
  await page.getByRole('button', { name: 'Run the batch' }).click()
  await untilComplete(page, /Batch complete: 2 done, 0 failed, 2 in all/)
  expect(await downloadAll(page)).toEqual(['manifest.json', 'openclipart-stopwatch.webp', 'tango-user-home.webp'])
})

test('a file of the wrong type is refused and charges nothing', async ({ page }, info) => {
  test.setTimeout(90_000)
  await page.goto('/tools/batch?tool=face-blurrer')
  const text = { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') }
  await page.getByLabel('Choose images').setInputFiles([text, payload('photos/group-nasa-astronaut-class-2.png', 'image/png')])
  if (!isNoJs(info)) {
    await expect(page.getByRole('list', { name: 'Chosen files' })).toContainText('Not sent: Invalid file type: the file is not an image this tool can read.')
    await page.getByRole('button', { name: 'Run the batch' }).click()
    await untilComplete(page, /Batch complete: 1 done, 0 failed, 1 in all/)
  } else {
    // Without JavaScript the server refuses that file by its bytes: it fails at once, never charged.
    await page.getByRole('button', { name: 'Run the batch' }).click()
    await untilComplete(page, /Batch complete: 1 done, 1 failed, 2 in all/)
    await expect(page.getByRole('list', { name: 'Files' }).getByRole('listitem').nth(0)).toContainText(/Failed: /)
  }
  // Only the photo that ran was charged (a visitor starts at 5).
  const balance = await page.request.get('/api/credits/balance/')
  expect((await balance.json()).balance).toBe(4)
})

test('a batch the balance cannot pay is refused with how many files it covers, before anything runs', async ({ page }, info) => {
  await page.goto('/tools/batch')
  await chooseTool(page, 'Image enhancer') // 2 credits each; a visitor has 5
  await page.getByLabel('Choose images').setInputFiles([
    fixture('photos/portrait-astronaut.png'),
    fixture('photos/degraded-face-crop-64px.jpg'),
    fixture('photos/degraded-face-astronaut-128px-q35.jpg'),
  ])
  const message = 'Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.'
  if (!isNoJs(info)) {
    // Said beside the files, and nothing can be sent.
    await expect(page.getByTestId('batch-problem')).toHaveText(message)
    await expect(page.getByRole('button', { name: 'Run the batch' })).toBeDisabled()
  } else {
    await page.getByRole('button', { name: 'Run the batch' }).click()
    await expect(page.getByTestId('batch-error')).toHaveText(message)
  }
  await expect(page).not.toHaveURL(/batch=/)
})

test('files are dropped and pasted onto the list, and removed from it', { tag: '@js-only' }, async ({ page }) => {
  // Only with JavaScript: drop and paste are JavaScript enhancements; the multiple-file input serves without it.
  await page.goto('/tools/batch?tool=face-blurrer')
  const bytes = [...readFileSync(fixture('photos/noface-cat-chelsea.png'))]
  const twoFiles = await page.evaluateHandle((data) => {
    const transfer = new DataTransfer()
    for (const name of ['cat-1.png', 'cat-2.png']) transfer.items.add(new File([new Uint8Array(data)], name, { type: 'image/png' }))
    return transfer
  }, bytes)
  await page.getByTestId('batch-stage').dispatchEvent('dragover', { dataTransfer: twoFiles })
  await page.getByTestId('batch-stage').dispatchEvent('drop', { dataTransfer: twoFiles })
  const chosen = page.getByRole('list', { name: 'Chosen files' }).getByRole('listitem')
  await expect(chosen).toHaveCount(2)
  // A paste anywhere on the page adds the pasted image.
  await page.evaluate((data) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([new Uint8Array(data)], 'pasted.png', { type: 'image/png' }))
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }))
  }, bytes)
  await expect(chosen).toHaveCount(3)
  await expect(chosen.nth(2)).toContainText('pasted.png')
  await expect(page.getByTestId('batch-totals')).toContainText('3 of 100 files')
  await chosen.nth(0).getByRole('button', { name: 'Remove cat-1.png' }).click()
  await expect(chosen).toHaveCount(2)
  await expect(page.getByTestId('batch-totals')).toContainText('2 of 100 files')
  await expect(page.getByTestId('tool-cost')).toHaveText('1 credit per file · 2 credits in all')
  // Another tool: the listed images are checked again (a PNG does not fit the SVG converter).
  await page.getByRole('navigation', { name: 'Tool' }).getByRole('link', { name: 'SVG converter' }).click()
  await expect(chosen.first()).toContainText('Not sent: Invalid file type: this is a PNG image. Choose an SVG file.')
  await expect(page.getByTestId('batch-totals')).toContainText('0 of 100 files')
})

test('a tool whose model is not installed says so and takes no file; the converter (no model) still works', async ({ page }) => {
  // The second studio of playwright.config.ts runs with an empty models folder.
  await page.goto(`http://localhost:${NO_MODELS_PORT}/tools/batch?tool=face-blurrer`)
  await expect(page.getByRole('heading', { name: 'This tool is not installed on this server' })).toBeVisible()
  await expect(page.getByLabel('Choose images')).toBeDisabled()
  await expect(page.getByRole('button', { name: 'Run the batch' })).toBeDisabled()
  await page.goto(`http://localhost:${NO_MODELS_PORT}/tools/batch?tool=svg-converter`)
  await expect(page.getByRole('heading', { name: 'This tool is not installed on this server' })).toHaveCount(0)
})

test('the Tools menu leads to the batch screen', async ({ page }) => {
  await page.goto('/about')
  const nav = page.getByTestId('site-header').getByRole('navigation', { name: 'Main' })
  await nav.getByText('Tools', { exact: true }).click()
  await nav.getByRole('link', { name: /^Batch/ }).click()
  await expect(page).toHaveURL(/\/tools\/batch$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Batch' })).toBeVisible()
})
