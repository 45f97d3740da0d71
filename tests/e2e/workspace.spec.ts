// The tool workspace of issue 13, at 360×740 and 1280×800: every state of every tool has a visual
// baseline and an axe-core pass; once a run starts, the progress, then the result and its download,
// are on screen without scrolling; focus moves to the outcome and the live region says it. Real runs
// on the real models; each test is a fresh visitor (5 credits).
import { readFile } from 'node:fs/promises'
import { type Page, type TestInfo } from '@playwright/test'
import sharp from 'sharp'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'
import { clickDownload, fixture, isNoJs, signInNewUser, spendVisitorCredits } from './support/tools'
import { MODEL_MISSING_TITLE } from '../../app/features/tools/ui/workspace-state'
import { NO_MODELS_PORT } from '../../playwright.config'
import { expectAccessible, expectState, holdToolRequest, SIZES } from './support/workspace'

const TOOLS = [
  { slug: 'background-remover', name: 'Background remover', file: 'photos/product-router-alpha-groundtruth.png', done: 'Cutout ready' },
  { slug: 'face-restorer', name: 'Face restorer', file: 'photos/degraded-face-crop-64px.jpg', done: 'Portrait ready' },
  { slug: 'image-enhancer', name: 'Image enhancer', file: 'photos/degraded-face-crop-64px.jpg', done: 'Enhancement ready' },
  { slug: 'face-blurrer', name: 'Face blurrer', file: 'photos/group-nasa-astronaut-class-2.png', done: 'Image secured' },
  { slug: 'svg-converter', name: 'SVG converter', file: 'svg/tango-user-home.svg', done: 'Export ready' },
] as const

async function open(page: Page, info: TestInfo, path: string, heading?: string) {
  await page.goto(path)
  if (heading) await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
}

const stage = (page: Page) => page.getByTestId('stage')

// The suite's largest file and the last in its order: each test is a fresh visitor or account of its own, so
// its tests spread over both workers instead of one worker running the whole file while the other waits.
test.describe.configure({ mode: 'parallel' })

for (const size of SIZES) {
  test.describe(`${size.width}×${size.height}`, () => {
    // Scrolls happen at once, not smoothly: the screen settles where it ends, the same every run.
    test.use({ viewport: { width: size.width, height: size.height }, reducedMotion: 'reduce' })

    for (const tool of TOOLS) {
      test(`${tool.name}: empty, chosen, processing, done, all in view`, { tag: '@js-only' }, async ({ page }, info) => {
        // Only with JavaScript: the browser run; the page post is below.
        if (tool.slug === 'svg-converter') await signInNewUser(page)
        await open(page, info, `/tools/${tool.slug}`, tool.name)
        await expect(stage(page)).toHaveAttribute('data-phase', 'empty')
        // The browser's own file control is hidden; the drop target says what it takes, once.
        await expect(page.getByTestId('file-input')).not.toBeInViewport()
        await expect(page.getByTestId('drop-zone')).toBeVisible()
        await expectState(page, `${tool.slug}-empty-${size.name}`)

        await page.getByTestId('file-input').setInputFiles(fixture(tool.file))
        await expect(stage(page)).toHaveAttribute('data-phase', 'chosen')
        await expect(page.getByTestId('status-badge')).toHaveAttribute('data-status', 'ready')
        await expectState(page, `${tool.slug}-chosen-${size.name}`)

        const held = await holdToolRequest(page)
        await page.getByTestId('process-button').click()
        await held.arrived
        await expect(stage(page)).toHaveAttribute('data-phase', /uploading|processing/)
        await expect(page.getByTestId('progress-panel')).toBeInViewport({ ratio: 1 })
        await expect(page.getByTestId('process-button')).toBeDisabled()
        // The stage message and percentage move with the run: masked in the baseline.
        await expectState(page, `${tool.slug}-processing-${size.name}`, { mask: [page.getByTestId('progress-panel')] })
        held.release()

        await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
        await expect(page.getByTestId('download-link')).toBeInViewport({ ratio: 1 })
        await expect(page.getByTestId('state-done')).toBeInViewport()
        await expect(page.getByTestId('state-done')).toBeFocused()
        await expect(page.getByTestId('announcer')).toContainText(tool.done)
        await expect(page.getByTestId('download-box')).toContainText(tool.done)
        await expectState(page, `${tool.slug}-done-${size.name}`)
      })
    }

    test('refused before upload: a text file named .png, then a TIFF shown as a placeholder', { tag: '@js-only' }, async ({ page }, info) => {
      // Only with JavaScript: checks in the browser.
      await open(page, info, '/tools/background-remover', 'Background remover')
      const dialogs: string[] = []
      page.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message())))
      await page.getByTestId('file-input').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('plain text, not a picture') })
      await expect(stage(page)).toHaveAttribute('data-phase', 'rejected')
      await expect(page.getByTestId('error-box')).toHaveText('Invalid file type: the file is not an image this tool can read. Choose a PNG, JPG or WebP image.')
      await expect(page.getByTestId('process-button')).toBeDisabled()
      await expect(page.getByTestId('upload-preview')).toHaveCount(0)
      expect(dialogs).toEqual([])
      await expectState(page, `rejected-${size.name}`)

      await open(page, info, '/tools/image-enhancer', 'Image enhancer')
      const tiff = await sharp(await readFile(fixture('photos/degraded-face-crop-64px.jpg'))).tiff().toBuffer()
      await page.getByTestId('file-input').setInputFiles({ name: 'scan.tif', mimeType: 'image/tiff', buffer: tiff })
      await expect(stage(page)).toHaveAttribute('data-phase', 'chosen')
      await expect(page.getByTestId('no-preview')).toContainText('TIFF image · no preview')
      await expect(page.locator('[data-testid="stage"] img:not([src^="/samples"])')).toHaveCount(0)
      await expectState(page, `tiff-chosen-${size.name}`)
      await page.getByTestId('process-button').click()
      await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
      // No broken image: the result alone, said so.
      const shown = page.getByTestId('result-image')
      await expect(shown).toBeVisible()
      expect(await shown.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(256)
      await expect(page.getByTestId('download-link')).toBeInViewport({ ratio: 1 })
    })

    test('a face blur that finds no face: no "Image secured", no download, not charged', async ({ page }, info) => {
      await open(page, info, '/tools/face-blurrer', 'Face blurrer')
      await page.getByTestId('file-input').setInputFiles(fixture('photos/noface-rocket.jpg'))
      await page.getByTestId('process-button').click()
      await expect(stage(page)).toHaveAttribute('data-phase', 'no-face', UNTIL_TEST_TIMEOUT)
      await expect(page.getByTestId('state-no-face')).toContainText('No faces found: nothing was blurred and you were not charged')
      await expect(page.getByText('Image secured')).toHaveCount(0)
      await expect(page.getByTestId('download-link')).toHaveCount(0)
      await expect(page.getByTestId('credits-remaining')).toContainText('5')
      if (!isNoJs(info)) {
        await expect(page.getByTestId('state-no-face')).toBeFocused()
        await expect(page.getByTestId('announcer')).toHaveText('No faces found: nothing was blurred and you were not charged')
        // The success toast belongs to a blur that happened.
        await expect(page.getByText('Faces blurred')).toHaveCount(0)
      }
      await expectState(page, `no-face-${size.name}`)
    })

    test('a run that fails says what happened, that nothing was charged, and what to do', async ({ page }, info) => {
      await open(page, info, '/tools/background-remover', 'Background remover')
      // A real PNG signature on a damaged body: it passes the browser's check and fails on the server.
      const png = await readFile(fixture('photos/product-router-alpha-groundtruth.png'))
      await page.getByTestId('file-input').setInputFiles({ name: 'damaged.png', mimeType: 'image/png', buffer: png.subarray(0, 400) })
      await page.getByTestId('process-button').click()
      await expect(stage(page)).toHaveAttribute('data-phase', 'failed', UNTIL_TEST_TIMEOUT)
      const panel = page.getByTestId('state-failed')
      await expect(panel).toContainText('The image could not be read')
      await expect(panel).toContainText('You were not charged')
      await expect(panel).toContainText('Try again, or choose another image.')
      await expect(page.getByTestId('credits-remaining')).toContainText('5')
      if (!isNoJs(info)) {
        await expect(panel).toBeFocused()
        await expect(panel).toBeInViewport()
        await expect(page.getByTestId('announcer')).toContainText('The image could not be read')
      }
      await expectState(page, `failed-${size.name}`)
    })

    test('a visitor without enough credits sees the cost, the balance, the refresh and the way forward', async ({ page }, info) => {
      await open(page, info, '/tools/face-restorer', 'Face restorer')
      await spendVisitorCredits(page)
      await open(page, info, '/tools/face-restorer', 'Face restorer')
      await expect(stage(page)).toHaveAttribute('data-phase', 'no-credits')
      const panel = page.getByTestId('state-no-credits')
      // Standard detail (no GFPGAN here) costs less than a real restoration (issue 35).
      await expect(panel).toContainText('A run costs 1 credit; your balance is 0 credits.')
      await expect(panel).toContainText('Free credits are shared by the visitors of one network and renew at 00:00 UTC.')
      await expect(page.getByTestId('process-button')).toBeDisabled()
      await expectState(page, `no-credits-${size.name}`)
      await panel.getByRole('link', { name: 'Create a free account for 50 credits' }).click()
      await expect(page).toHaveURL(/\/login\?mode=register$/)
    })

    test('a visitor is asked to sign in before choosing an SVG', async ({ page }, info) => {
      // Issue 21: the account is asked for before a file is chosen, with JavaScript and without.
      await open(page, info, '/tools/svg-converter', 'SVG converter')
      await expect(stage(page)).toHaveAttribute('data-phase', 'sign-in')
      await expect(page.getByTestId('state-sign-in').getByRole('link')).toHaveAttribute('href', '/login?from=/tools/svg-converter')
      await expect(page.getByTestId('drop-zone')).toHaveCount(0)
      await expect(page.getByTestId('file-input')).toBeDisabled()
      await expect(page.getByTestId('process-button')).toBeDisabled()
      await expectState(page, `sign-in-${size.name}`)
    })

    for (const tool of TOOLS) {
      test(`${tool.name} without JavaScript: choose, post, the stored result and its download in view`, { tag: '@no-js-only' }, async ({ page }, info) => {
        // Only without JavaScript: the page post.
        if (tool.slug === 'svg-converter') await signInNewUser(page)
        await open(page, info, `/tools/${tool.slug}`, tool.name)
        await expectState(page, `${tool.slug}-empty-${size.name}`)
        await expect(page.getByTestId('chosen-no-js')).toBeHidden()
        await page.getByTestId('file-input').setInputFiles(fixture(tool.file))
        await expect(page.getByTestId('chosen-no-js')).toContainText('File chosen. Press')
        await page.getByTestId('process-button').click()
        await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
        await expect(page.getByTestId('download-box')).toContainText(tool.done)
        await expect(page.getByTestId('download-link')).toBeInViewport({ ratio: 1 })
        await expectState(page, `${tool.slug}-done-${size.name}`)
      })
    }

    test('a tool whose model is not installed says so and takes no file', async ({ page }) => {
      // The second studio of playwright.config.ts runs with an empty models folder.
      await page.goto(`http://localhost:${NO_MODELS_PORT}/tools/background-remover`)
      await expect(page.getByRole('heading', { level: 1, name: 'Background remover' })).toBeVisible()
      await expect(stage(page)).toHaveAttribute('data-phase', 'model-missing')
      await expect(page.getByText(MODEL_MISSING_TITLE)).toBeVisible()
      await expect(page.getByTestId('process-button')).toBeDisabled()
      await expectState(page, `model-missing-${size.name}`)
    })
  })
}

test('samples to try, a pasted image and a dropped one: all checked, a sample run is real and charged', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: samples, paste and drop need JavaScript.
  await open(page, info, '/tools/background-remover', 'Background remover')
  await page.getByRole('button', { name: 'Try the sample: A wireless router' }).click()
  await expect(page.getByTestId('file-summary')).toContainText('router.jpg')
  await expect(page.getByTestId('file-summary')).toContainText('image/jpeg')
  await page.getByTestId('process-button').click()
  await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
  await expect(page.getByTestId('credits-remaining')).toContainText('4')

  // Ctrl/Cmd+V: a pasted image file is taken like a chosen one.
  await open(page, info, '/tools/face-blurrer', 'Face blurrer')
  const bytes = [...(await readFile(fixture('photos/group-nasa-astronaut-class-2.png')))]
  await page.evaluate((data) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([new Uint8Array(data)], 'pasted.png', { type: 'image/png' }))
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true }))
  }, bytes)
  await expect(page.getByTestId('file-summary')).toContainText('pasted.png')
  await expect(stage(page)).toHaveAttribute('data-phase', 'chosen')

  // Dropped on the stage, and checked the same way: a text file is refused.
  const drop = await page.evaluateHandle(() => {
    const transfer = new DataTransfer()
    transfer.items.add(new File(['not an image'], 'notes.webp', { type: 'image/webp' }))
    return transfer
  })
  await page.getByTestId('stage').dispatchEvent('drop', { dataTransfer: drop })
  await expect(stage(page)).toHaveAttribute('data-phase', 'rejected')
})

test('the keyboard alone: choose with the file control, run with Enter, land on the result', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: focus after a browser run.
  await open(page, info, '/tools/face-blurrer', 'Face blurrer')
  const input = page.getByTestId('file-input')
  await input.focus()
  await expect(input).toBeFocused()
  // The hidden control's focus shows on the drop target.
  expect(await page.getByTestId('drop-zone').evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid')
  await input.setInputFiles(fixture('photos/group-nasa-astronaut-class-2.png'))
  // The button turns enabled once the workspace has taken the file; Enter on it before then does nothing
  // (a click waits for that by itself, a key press does not).
  await expect(page.getByTestId('process-button')).toBeEnabled()
  await page.getByTestId('process-button').focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('state-done')).toBeFocused(UNTIL_TEST_TIMEOUT)
  await page.keyboard.press('Tab')
  await expect(page.getByTestId('compare-range')).toBeFocused()
})

test.describe('every page passes axe-core at both sizes', () => {
  const PAGES = ['/', '/about', '/api', '/contact', '/pricing', '/credits', '/login', '/login?mode=register', '/login?forgot=1', '/verify-email', '/terms', '/privacy', '/no-such-page']
  for (const size of SIZES) {
    // The page without JavaScript is the server's HTML, the same at both sizes but for the styles: checked
    // once, at the phone size, where a visitor without scripts most often is (each page there is a twin
    // context of its own, the slowest scan of the suite).
    test(`public pages at ${size.width}×${size.height}`, { tag: size.width > 360 ? '@js-only' : [] }, async ({ page }, info) => {
      // Thirteen pages, each checked in a twin without JavaScript: more than one test's usual minute.
      test.setTimeout(240_000)
      await page.setViewportSize(size)
      for (const path of PAGES) {
        await page.goto(path)
        await expectAccessible(page, `${path} at ${size.width}`)
      }
    })

    test(`signed-in pages and the mobile menu at ${size.width}×${size.height}`, async ({ page }, info) => {
      await signInNewUser(page)
      await page.setViewportSize(size)
      for (const path of ['/dashboard', '/credits', '/tools/svg-converter']) {
        await page.goto(path)
        await expectAccessible(page, `${path} signed in at ${size.width}`)
      }
      if (size.width < 768) {
        await page.getByTestId('mobile-menu').locator('summary').click()
        const panel = page.getByTestId('mobile-menu-panel')
        await expect(panel.getByRole('button', { name: 'Sign out' })).toBeInViewport({ ratio: 1 })
        for (const name of ['Home', 'About', 'API', 'Contact']) await expect(panel.getByRole('link', { name, exact: true })).toBeInViewport({ ratio: 1 })
        expect((await panel.boundingBox())!.height).toBeLessThanOrEqual(640)
        await expectAccessible(page, `mobile menu signed in (${info.project.name})`)
      }
    })
  }
})

test('after a result the phone\'s bar offers Download and New image, never the run again', async ({ page }, info) => {
  // Issue 35: a second tap on the pinned run button ran, and charged, the same image again.
  await page.setViewportSize({ width: 360, height: 740 })
  await open(page, info, '/tools/background-remover', 'Background remover')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await page.getByTestId('process-button').click()
  await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
  const bar = page.getByTestId('action-bar')
  await expect(page.getByTestId('process-button')).toBeHidden()
  await expect(page.getByTestId('credits-remaining')).toContainText('Credits remaining: 4')
  const download = bar.getByRole(isNoJs(info) ? 'link' : 'button', { name: 'Download', exact: true })
  const fresh = bar.getByRole(isNoJs(info) ? 'link' : 'button', { name: 'New image', exact: true })
  await expect(download).toBeInViewport({ ratio: 1 })
  await expect(fresh).toBeInViewport({ ratio: 1 })
  // Pinned to the bottom of the screen, as the run button was (by CSS alone without JavaScript).
  expect(await bar.evaluate((el) => getComputedStyle(el).position)).toBe('fixed')
  // The bar's Download is the result's own download (the same file and name).
  expect(await clickDownload(page, download)).toMatchObject({ name: 'background-removed.png', format: 'png' })
  // New image: the file chooser with JavaScript (the result stays until a file is chosen), the empty tool without.
  if (isNoJs(info)) {
    await fresh.click()
    await expect(page).toHaveURL(/\/tools\/background-remover$/)
    await expect(stage(page)).toHaveAttribute('data-phase', 'empty')
  } else {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), fresh.click()])
    await chooser.setFiles(fixture('photos/noface-rocket.jpg'))
    await expect(stage(page)).toHaveAttribute('data-phase', 'chosen')
    await expect(page.getByTestId('process-button')).toBeEnabled()
    await expect(bar.getByRole('button', { name: 'New image' })).toHaveCount(0)
  }
  // Nothing ran a second time.
  await expect(page.getByTestId('credits-remaining')).toContainText('Credits remaining: 4')
  // Wider screens keep the run button beside the result (a run with other settings is a choice there).
  if (!isNoJs(info)) return
  await page.goBack()
  await page.setViewportSize({ width: 1280, height: 800 })
  await expect(stage(page)).toHaveAttribute('data-phase', 'done')
  await expect(page.getByTestId('process-button')).toBeVisible()
  await expect(bar.getByRole('link', { name: 'New image' })).toBeHidden()
})

test('one balance on the page during a run: the header and the card change together', { tag: '@js-only' }, async ({ page }, info) => {
  // Issue 35: the card showed the charged balance while the header still showed the old one.
  await open(page, info, '/tools/background-remover', 'Background remover')
  const header = page.getByTestId('credits-button')
  await expect(header).toHaveText('5 credits')
  await expect(page.getByTestId('credits-remaining')).toHaveText('Credits remaining: 5')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  const held = await holdToolRequest(page)
  await page.getByTestId('process-button').click()
  await held.arrived
  // Read together, in the first frame the card shows the charge (before the run ends and the page's data is read again).
  const seen = page.waitForFunction(() => {
    const card = document.querySelector('[data-testid="credits-remaining"]')?.textContent ?? ''
    if (!card.endsWith(': 4')) return false
    const phase = document.querySelector('[data-testid="stage"]')?.getAttribute('data-phase')
    return {
      card,
      header: document.querySelector('[data-testid="credits-button"]')?.textContent,
      menu: document.querySelector('[data-testid="mobile-credits-button"]')?.textContent,
      phase,
    }
  })
  held.release()
  const together = await (await seen).jsonValue()
  expect(together).toMatchObject({ card: 'Credits remaining: 4', header: '4 credits', menu: '4 credits' })
  await expect(stage(page)).toHaveAttribute('data-phase', 'done', UNTIL_TEST_TIMEOUT)
  await expect(header).toHaveText('4 credits')
  await expect(page.getByTestId('credits-remaining')).toHaveText('Credits remaining: 4')
})

test('prices read the same on /pricing and /credits', async ({ page }) => {
  for (const path of ['/pricing', '/credits']) {
    await page.goto(path)
    const main = page.getByRole('main')
    for (const price of ['$9', '$39', '$129']) await expect(main.getByText(price, { exact: true }).first()).toBeVisible()
    await expect(main.getByText(/\$\d+\.00\b/)).toHaveCount(0)
  }
})
