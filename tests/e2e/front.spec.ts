// Issue 21, items 4, 5 and 7 at 360×740 and 1280×800, with JavaScript on and off: the run button and
// its cost stay on screen once a file is chosen (a pinned action bar on phones), Batch is in the
// mobile menu and the footer, the home page's drop zone runs the background remover, the SVG
// converter asks a visitor to sign in before a file and brings them back, and an oversize upload
// without JavaScript is refused with the page's words.
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type Locator, type Page, type TestInfo } from '@playwright/test'
import { expect, test } from './support/test'
import { fixture, isNoJs, picture, signInNewUser } from './support/tools'

// Real runs on a shared machine: room for a slow model without a guessed sleep anywhere.
test.describe.configure({ timeout: 180_000 })

const PHONE = { width: 360, height: 740 }
const DESKTOP = { width: 1280, height: 800 }

const TOOLS = [
  { slug: 'background-remover', name: 'Background remover', file: 'photos/product-router-alpha-groundtruth.png' },
  { slug: 'face-restorer', name: 'Face restorer', file: 'photos/degraded-face-crop-64px.jpg' },
  { slug: 'image-enhancer', name: 'Image enhancer', file: 'photos/degraded-face-crop-64px.jpg' },
  { slug: 'face-blurrer', name: 'Face blurrer', file: 'photos/group-nasa-astronaut-class-2.png' },
  { slug: 'svg-converter', name: 'SVG converter', file: 'svg/tango-user-home.svg' },
] as const

async function open(page: Page, info: TestInfo, path: string, heading: string) {
  await page.goto(path)
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
}

/** The element's box lies wholly inside the viewport (not merely intersecting it). */
async function expectWhollyOnScreen(page: Page, locator: Locator, what: string) {
  const box = await locator.boundingBox()
  const viewport = page.viewportSize()!
  expect(box, `${what} has a box`).not.toBeNull()
  expect(box!.y, `${what} top`).toBeGreaterThanOrEqual(0)
  expect(box!.x, `${what} left`).toBeGreaterThanOrEqual(0)
  expect(box!.y + box!.height, `${what} bottom`).toBeLessThanOrEqual(viewport.height)
  expect(box!.x + box!.width, `${what} right`).toBeLessThanOrEqual(viewport.width)
}

for (const size of [PHONE, DESKTOP]) {
  test.describe(`${size.width}×${size.height}`, () => {
    test.use({ viewport: size, reducedMotion: 'reduce' })

    for (const tool of TOOLS) {
      test(`${tool.name}: the run button and its cost stay in view once a file is chosen`, async ({ page }, info) => {
        if (tool.slug === 'svg-converter') await signInNewUser(page)
        await open(page, info, `/tools/${tool.slug}`, tool.name)
        await page.getByTestId('file-input').setInputFiles(fixture(tool.file))
        if (!isNoJs(info)) await expect(page.getByTestId('stage')).toHaveAttribute('data-phase', 'chosen')
        const button = page.getByTestId('process-button')
        const cost = page.getByTestId('tool-cost')
        await expectWhollyOnScreen(page, button, 'the run button')
        await expectWhollyOnScreen(page, cost, 'the cost')
        await picture(page, `front-${tool.slug}-chosen-${info.project.name}-${size.width}`)
        // Scrolled to the end of the page (past the settings, to the footer), both are still there.
        await page.getByTestId('site-footer').scrollIntoViewIfNeeded()
        await expect(page.getByTestId('site-footer')).toBeInViewport()
        if (size === PHONE) {
          await expectWhollyOnScreen(page, button, 'the run button after scrolling')
          await expectWhollyOnScreen(page, cost, 'the cost after scrolling')
          // The page keeps room under its last line: scrolled to the very end, the footer's end is not under the bar.
          const lastLine = page.getByTestId('site-footer').locator('p').last()
          await page.mouse.wheel(0, 20_000)
          await expect
            .poll(async () => {
              const [bar, line] = await Promise.all([page.getByTestId('action-bar').boundingBox(), lastLine.boundingBox()])
              return bar!.y - (line!.y + line!.height)
            })
            .toBeGreaterThanOrEqual(0)
        }
        await expect(button).toBeEnabled()
      })
    }

    test('Batch is in the menu and the footer', async ({ page }) => {
      await page.goto('/')
      const footer = page.getByTestId('site-footer')
      await expect(footer.getByRole('link', { name: 'Batch', exact: true })).toHaveAttribute('href', '/tools/batch')
      if (size === PHONE) {
        await page.getByTestId('mobile-menu').locator('summary').click()
        const panel = page.getByTestId('mobile-menu-panel')
        await expect(panel.getByRole('link', { name: /^Batch/ })).toBeVisible()
        await panel.getByRole('link', { name: /^Batch/ }).click()
        await expect(page).toHaveURL(/\/tools\/batch$/)
      }
    })

    test('the home page drop zone runs the background remover', async ({ page }, info) => {
      await page.goto('/')
      await expect(page.getByRole('link', { name: 'Get started free' })).toHaveAttribute('href', '/tools/background-remover')
      await picture(page, `front-home-${info.project.name}-${size.width}`)
      const zone = page.getByRole('form', { name: 'Start the background remover' })
      await expect(zone).toBeVisible()
      await zone.getByLabel('Choose an image for the background remover').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
      // Without JavaScript the form is posted to the remover's page; with it, choosing the file starts the run there.
      if (isNoJs(info)) await zone.getByRole('button', { name: 'Remove background' }).click()
      await expect(page).toHaveURL(/\/tools\/background-remover/)
      await expect(page.getByTestId('download-box')).toContainText('Cutout ready', { timeout: 120_000 })
      await expect(page.getByTestId('credits-remaining')).toContainText('4')
    })

    test('a visitor sees the SVG converter ask for an account before any file, and comes back after signing in', async ({ page, browser }, info) => {
      // The account, made in another browser so this one stays a visitor.
      const other = await browser.newContext()
      const email = await signInNewUser(await other.newPage())
      await other.close()

      await open(page, info, '/tools/svg-converter', 'SVG converter')
      const panel = page.getByTestId('state-sign-in')
      await expect(panel).toBeVisible()
      await expect(panel).toContainText('This tool needs a free Facet Studio account')
      await expect(page.getByTestId('drop-zone')).toHaveCount(0)
      await expect(page.getByTestId('file-input')).toBeDisabled()
      await expect(page.getByTestId('process-button')).toBeDisabled()

      await panel.getByRole('link', { name: 'Sign in to convert SVG files' }).click()
      await expect(page).toHaveURL(/\/login\?from=%2Ftools%2Fsvg-converter|\/login\?from=\/tools\/svg-converter/)
      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple 42')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await expect(page).toHaveURL(/\/tools\/svg-converter$/)
      await expect(page.getByTestId('state-sign-in')).toHaveCount(0)
      await expect(page.getByTestId('drop-zone')).toBeVisible()
    })
  })
}

test('without JavaScript an upload over the limit is refused before it is read, in the page words', { tag: '@no-js-only' }, async ({ page }, info) => {
  // Only without JavaScript: the browser refuses it itself before sending (file-checks.ts).
  await page.setViewportSize(PHONE)
  await open(page, info, '/tools/face-blurrer', 'Face blurrer')
  // A PNG's signature and 16 MB of padding: past the blurrer's 15 MB. Written to disk: the browser reads it from there.
  const big = path.resolve(info.outputDir, 'huge.png')
  await mkdir(info.outputDir, { recursive: true })
  await writeFile(big, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16 * 1024 * 1024)]))
  await page.getByTestId('file-input').setInputFiles(big)
  const answer = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/tools/face-blurrer'))
  await page.getByTestId('process-button').click()
  expect((await answer).status()).toBe(413)
  await expect(page.getByTestId('stage')).toHaveAttribute('data-phase', 'rejected')
  await expect(page.getByTestId('error-box')).toHaveText("This file can't be used: file too large (max 15MB).")
  await expect(page.getByText('The run failed')).toHaveCount(0)
})
