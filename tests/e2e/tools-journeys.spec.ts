// One journey per tool, with JavaScript (XHR upload, stages, client-side downloads) and without it
// (the form posts to the page's action and the page shows the stored result). Each test runs in a
// fresh browser context: a new visitor with the guest balance.
import { readFile } from 'node:fs/promises'
import { type Page, type TestInfo } from '@playwright/test'
import { clickDownload, fixture, isNoJs, pixelAt, screenshots, signInNewUser } from './support/tools'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'


async function open(page: Page, info: TestInfo, path: string, name: string) {
  await page.goto(path)
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}')
  expect(jsonLd.offers).toMatchObject({ price: '0', priceCurrency: 'USD' })
  expect(jsonLd.url).toContain(path)
}

test('background remover: transparent cutout and a coloured download', async ({ page }, info) => {
  await open(page, info, '/tools/background-remover', 'Background remover')
  await screenshots(page, info, 'background-remover-before')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))

  if (isNoJs(info)) {
    await page.getByTitle('#10b981').click()
    await expect(page.getByRole('radio', { name: '#10b981' })).toBeChecked()
    await page.getByTestId('process-button').click()
    await expect(page.getByTestId('download-box')).toContainText('Cutout ready', UNTIL_TEST_TIMEOUT)
    const file = await clickDownload(page, page.getByTestId('download-link'))
    expect(file).toMatchObject({ name: 'cutout-10b981.png', format: 'png', width: 220, height: 203 })
    expect((await pixelAt(file.bytes, 0, 0)).slice(0, 3)).toEqual([16, 185, 129])
    await screenshots(page, info, 'background-remover-after')

    // A custom colour is posted as background=custom with the typed hex: checked by the server,
    // which answers 400 (and charges nothing) for one that is not 3- or 6-digit hex.
    await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
    await page.getByRole('radio', { name: 'Custom colour' }).check()
    await expect(page.getByLabel('Custom colour (hex)')).toHaveValue('#ffffff')
    await page.getByLabel('Custom colour (hex)').fill('#12')
    const refused = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/tools/background-remover'))
    await page.getByTestId('process-button').click()
    expect((await refused).status()).toBe(400)
    await expect(page.getByTestId('error-box')).toContainText('background must be a colour as #rgb or #rrggbb')

    await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
    await page.getByRole('radio', { name: 'Custom colour' }).check()
    await page.getByLabel('Custom colour (hex)').fill('#336699')
    await page.getByTestId('process-button').click()
    await expect(page.getByTestId('credits-remaining')).toContainText('Credits remaining: 3')
    const custom = await clickDownload(page, page.getByTestId('download-link'))
    expect(custom).toMatchObject({ name: 'cutout-336699.png', format: 'png', width: 220, height: 203 })
    expect(await pixelAt(custom.bytes, 0, 0)).toEqual([51, 102, 153, 255])
    return
  }

  await expect(page.getByTestId('file-summary')).toContainText('product-router-alpha-groundtruth.png')
  await expect(page.getByTestId('status-badge')).toHaveText(/Ready/)
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Cutout ready', UNTIL_TEST_TIMEOUT)
  await expect(page.getByTestId('progress-percent')).toHaveText('100%')
  await expect(page.getByTestId('progress-message')).toHaveText('Cutout ready')
  await expect(page.getByTestId('credits-remaining')).toContainText('4')

  const transparent = await clickDownload(page, page.getByTestId('download-link'))
  expect(transparent).toMatchObject({ name: 'background-removed.png', format: 'png', width: 220, height: 203 })
  expect((await pixelAt(transparent.bytes, 0, 0))[3]).toBeLessThan(40)

  // A colour chosen after the run is drawn in the browser: no second request, no second credit.
  const runs: string[] = []
  page.on('request', (request) => request.method() === 'POST' && request.url().includes('/api/jobs/') && runs.push(request.url()))
  await page.getByTitle('#f472b6').click()
  await expect(page.getByRole('radio', { name: '#f472b6' })).toBeChecked()
  const coloured = await clickDownload(page, page.getByTestId('download-coloured'))
  expect(coloured).toMatchObject({ name: 'cutout-f472b6.png', format: 'png', width: 220, height: 203 })
  expect(await pixelAt(coloured.bytes, 0, 0)).toEqual([244, 114, 182, 255])
  await page.getByTestId('custom-colour').fill('#123')
  const custom = await clickDownload(page, page.getByTestId('download-coloured'))
  expect(custom.name).toBe('cutout-123.png')
  expect(runs).toEqual([])
  await expect(page.getByTestId('credits-remaining')).toContainText('4')
  await screenshots(page, info, 'background-remover-after')
})

test('background remover: the model select, and which model made the cutout', async ({ page }, info) => {
  await open(page, info, '/tools/background-remover', 'Background remover')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  // The e2e server has U²-Netp only: asking for quality is answered by it, and the page says so.
  await expect(page.getByLabel('Model')).toHaveValue('auto')
  await page.getByLabel('Model').selectOption({ label: 'Best quality (BiRefNet-lite or ISNet)' })
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Cutout ready', UNTIL_TEST_TIMEOUT)
  await expect(page.getByTestId('model-used')).toHaveText(
    'Cut out by U²-Netp. model=quality: no quality model (BiRefNet-lite, ISNet general-use) is installed on this server, so U²-Netp was used.',
  )
  // Without JavaScript the page is reloaded with the result: the select still shows what was asked for.
  await expect(page.getByLabel('Model')).toHaveValue('quality')
})

test('face blurrer: eight faces blurred and the count reported', async ({ page }, info) => {
  await open(page, info, '/tools/face-blurrer', 'Face blurrer')
  await expect(page.getByText('You can blur images as a visitor. Sign in to sync credits across devices and unlock account history.')).toBeVisible()
  await expect(page.getByTestId('blur-tiles')).toContainText('No image yet')
  await expect(page.getByTestId('blur-tiles')).toContainText('Pending')
  await screenshots(page, info, 'face-blurrer-before')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/group-nasa-astronaut-class-2.png'))

  if (!isNoJs(info)) {
    await expect(page.getByTestId('blur-tiles')).toContainText('Live upload')
    await expect(page.getByTestId('blur-tiles')).toContainText('32px preview')
    await expect(page.getByText('Run blur to generate final output')).toBeVisible()
    // The slider works by keyboard: two steps up.
    await page.getByLabel('Blur intensity').focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await expect(page.getByTestId('blur-value')).toHaveText('36px')
  }
  // With JavaScript the run is a job: the page follows it, then reads its answer (the endpoint's own).
  const answer = isNoJs(info) ? null : page.waitForResponse((r) => /\/api\/jobs\/[0-9a-f-]{36}\/answer\/$/.test(r.url()))
  await page.getByTestId('process-button').click()
  if (answer) {
    await expect(page.getByTestId('process-button')).toHaveText(/Running AI blur…|Blur this image/)
    const response = await answer
    expect(response.headers()['x-faces-found']).toBe('8')
  }
  await expect(page.getByTestId('download-box')).toContainText('Image secured')
  await expect(page.getByTestId('faces-detected')).toHaveText('Faces detected: 8')
  await expect(page.getByTestId('download-box')).toContainText('Credits remaining: 4')
  await expect(page.getByTestId('blur-tiles')).toContainText('8 faces')
  await expect(page.getByTestId('blur-tiles')).toContainText(isNoJs(info) ? '32px applied' : '36px applied')
  if (!isNoJs(info)) {
    // The compare slider answers the keyboard.
    const range = page.getByTestId('compare-range')
    await range.focus()
    await page.keyboard.press('Home')
    await expect(range).toHaveValue('0')
  }
  // The header agrees with the page: also for a brand-new visitor posting without JavaScript.
  await expect(page.getByTestId('credits-button')).toHaveText(/4 credits/)
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file).toMatchObject({ name: 'face-blurred.png', format: 'png', width: 416, height: 290 })
  await screenshots(page, info, 'face-blurrer-after')
  if (isNoJs(info)) {
    // The result page is a GET after a redirect (the job's page): reloading it shows the result again
    // and costs nothing.
    expect(new URL(page.url()).searchParams.get('job')).toMatch(/^[0-9a-f-]{36}$/)
    await page.reload()
    await expect(page.getByTestId('faces-detected')).toHaveText('Faces detected: 8')
    await expect(page.getByTestId('download-box')).toContainText('Credits remaining: 4')
  }
})

test('face restorer: a restored portrait at twice the size', async ({ page }, info) => {
  await open(page, info, '/tools/face-restorer', 'Face restorer')
  await expect(page.getByTestId('engine-label')).toHaveText(/GFPGAN v1.4 · signature detail|Standard detail/)
  // Standard detail (no face-restoration model) is priced below a real restoration (issue 35), as shown.
  const standard = (await page.getByTestId('engine-label').textContent())!.includes('Standard detail')
  await expect(page.getByTestId('tool-cost')).toHaveText(standard ? '1 credit per run' : '2 credits per run')
  await screenshots(page, info, 'face-restorer-before')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/degraded-face-astronaut-128px-q35.jpg'))
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Portrait ready', UNTIL_TEST_TIMEOUT)
  await expect(page.getByTestId('credits-remaining')).toContainText(`Credits remaining: ${standard ? 4 : 3}`)
  const file = await clickDownload(page, page.getByTestId('download-link'))
  // At 2×, as GFPGAN's --upscale 2 (decision 019); a JPEG in, a JPEG out by default (decision 173).
  expect(file).toMatchObject({ name: 'face-restored.jpg', format: 'jpeg', width: 256, height: 256 })
  await screenshots(page, info, 'face-restorer-after')
})

test('image enhancer: demo before upload, an upscaled WebP after when WebP is the file type chosen', async ({ page }, info) => {
  await open(page, info, '/tools/image-enhancer', 'Image enhancer')
  await expect(page.getByTestId('demo-preview')).toBeVisible()
  // Its pictures: with JavaScript asked for once the page is hydrated, without it shown from the <noscript>.
  for (const name of ['Demo photo before enhancement', 'Demo photo after enhancement']) {
    await expect(page.getByTestId('demo-preview').getByRole('img', { name })).toBeVisible()
  }
  await expect(page.getByText('Sign in to track usage credits.')).toBeVisible()
  await screenshots(page, info, 'image-enhancer-before')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/degraded-face-astronaut-128px-q35.jpg'))
  // A form field: it posts the same with and without JavaScript.
  await page.getByLabel('File type').selectOption('webp')
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready', UNTIL_TEST_TIMEOUT)
  if (!isNoJs(info)) await expect(page.getByText('Image enhanced', { exact: true })).toBeVisible()
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file.name).toBe('degraded-face-astronaut-128px-q35-enhanced.webp')
  expect(file.format).toBe('webp')
  expect(file.width).toBe(file.height)
  expect(file.width).toBeGreaterThan(128)
  await screenshots(page, info, 'image-enhancer-after')
})

test('SVG converter: a signed-in user exports WebP at 2×', async ({ page }, info) => {
  await signInNewUser(page)
  await open(page, info, '/tools/svg-converter', 'SVG converter')
  await screenshots(page, info, 'svg-converter-before')
  await page.getByTestId('file-input').setInputFiles(fixture('svg/tango-user-home.svg'))
  if (!isNoJs(info)) await expect(page.getByTestId('status-badge')).toHaveText(/queued/)
  await page.getByLabel('Export format').selectOption('webp')
  await page.getByLabel('Scale').selectOption('2')
  if (!isNoJs(info)) await expect(page.getByTestId('transparent-switch')).toBeChecked()
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Export ready', UNTIL_TEST_TIMEOUT)
  if (!isNoJs(info)) {
    await expect(page.getByTestId('status-badge')).toHaveText(/ready/)
    await expect(page.getByText('Conversion complete')).toBeVisible()
  }
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file).toMatchObject({ name: 'tango-user-home.webp', format: 'webp' })
  expect(file.width).toBeGreaterThanOrEqual(64)
  await screenshots(page, info, 'svg-converter-after')
})

test('SVG converter: PNG on a solid background colour', async ({ page }, info) => {
  await signInNewUser(page)
  await open(page, info, '/tools/svg-converter', 'SVG converter')
  await page.getByTestId('file-input').setInputFiles(fixture('svg/tango-user-home.svg'))
  await page.getByLabel('Export format').selectOption('png')
  if (isNoJs(info)) {
    await page.getByRole('checkbox', { name: /Solid #ffffff background/ }).check()
  } else {
    await page.getByTestId('transparent-switch').uncheck({ force: true })
    await page.getByTestId('svg-background').fill('#000000')
  }
  await page.getByTestId('process-button').click()
  await expect(page.getByTestId('download-box')).toContainText('Export ready', UNTIL_TEST_TIMEOUT)
  const file = await clickDownload(page, page.getByTestId('download-link'))
  expect(file).toMatchObject({ name: 'tango-user-home.png', format: 'png' })
  // The corner is outside the icon: it carries the chosen background, fully opaque.
  expect(await pixelAt(file.bytes, 0, 0)).toEqual(isNoJs(info) ? [255, 255, 255, 255] : [0, 0, 0, 255])
})

test('upload card takes a dropped file', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: drag-and-drop is a JavaScript enhancement; the file input serves without it.
  await open(page, info, '/tools/face-blurrer', 'Face blurrer')
  const bytes = [...(await readFile(fixture('photos/noface-cat-chelsea.png')))]
  const dataTransfer = await page.evaluateHandle((data) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([new Uint8Array(data)], 'cat.png', { type: 'image/png' }))
    return transfer
  }, bytes)
  await page.getByTestId('drop-zone').dispatchEvent('dragover', { dataTransfer })
  await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer })
  await expect(page.getByTestId('file-summary')).toContainText('cat.png')
  await expect(page.getByTestId('file-summary')).toContainText('image/png')
  await expect(page.getByTestId('status-badge')).toHaveText(/Ready/)
  await expect(page.getByTestId('process-button')).toBeEnabled()
})
