// Helpers for the tool-screen journeys: fixtures, reading downloads, signing a user in through the
// API, spending a visitor's credits, and screenshots at phone and desktop widths.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { expect, type Download, type Page, type Route, type TestInfo } from '@playwright/test'
import sharp from 'sharp'
import { MAIL_DIR, waitForMail } from './mail'

export const PORT = Number(process.env.E2E_PORT ?? 3210)

export const fixture = (name: string) => path.resolve('tests/fixtures', name)

export const isNoJs = (info: TestInfo) => info.project.name === 'no-js'

/** Saves a download and describes it: name, format and pixel size (sharp reads the bytes). */
export async function readDownload(download: Download) {
  const file = await download.path()
  const bytes = await readFile(file)
  const meta = await sharp(bytes).metadata()
  return { name: download.suggestedFilename(), bytes, format: meta.format, width: meta.width, height: meta.height }
}

/** The colour of one pixel of a downloaded image, as [r, g, b, a]. */
export async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const offset = (y * info.width + x) * 4
  return [...data.subarray(offset, offset + 4)]
}

export async function clickDownload(page: Page, locator: ReturnType<Page['getByTestId']>) {
  const [download] = await Promise.all([page.waitForEvent('download'), locator.click()])
  return readDownload(download)
}

/** The tag that makes a page reload itself without JavaScript (a running batch's or job's page). */
const SELF_REFRESH_TAG = /<meta\s+http-equiv="refresh"[^>]*>/gi

/**
 * The check that a phone (360 px) never scrolls sideways, and full-page pictures at 360 px and 1280 px
 * when asked (TAKE_PICTURES).
 *
 * `selfRefreshing`: the page reloads itself (SELF_REFRESH_TAG, no JavaScript). Chromium's full-page
 * screenshot does not return when the page navigates while it is being taken (reproduced with a bare page
 * that refreshes every second: several captures in 120 hung; decision 152, part four), so such a page is
 * left, opened again without its tag and shot, then opened as it was. The caller says so: reading the tag
 * off the page can itself land in the middle of a reload and miss it.
 */
export async function screenshots(page: Page, info: TestInfo, name: string, { selfRefreshing = false } = {}) {
  if (!selfRefreshing) return shootAtBothWidths(page, info, name)
  const address = page.url()
  const isThisPage = (url: URL) => url.href === address
  const withoutRefresh = async (route: Route) => {
    const response = await route.fetch()
    await route.fulfill({ response, body: (await response.text()).replace(SELF_REFRESH_TAG, '') })
  }
  // Off the page first, so that no reload it has begun can land during the capture.
  await leaveSelfRefreshingPage(page)
  await page.route(isThisPage, withoutRefresh)
  try {
    await page.goto(address)
    // Should the page's markup ever stop matching SELF_REFRESH_TAG, the capture would hang again: fail here instead.
    await expect(page.locator('meta[http-equiv="refresh" i]'), `${name}: the copy without SELF_REFRESH_TAG still refreshes itself`).toHaveCount(0)
    await shootAtBothWidths(page, info, name)
  } finally {
    await page.unroute(isThisPage, withoutRefresh)
    await page.goto(address)
  }
}

/** To a blank page, from one whose own reload can cut in on the way (then again: it has begun that reload). */
async function leaveSelfRefreshingPage(page: Page) {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto('about:blank')
      return
    } catch (error) {
      if (attempt === 3 || !/ERR_ABORTED|interrupted by another navigation|frame was detached/.test(String(error))) throw error
    }
  }
}

/**
 * Pictures of pages for a person to look at (test-results/screenshots/), taken only when asked:
 * `SCREENSHOTS=1 npx playwright test ...`. Nothing compares them (the compared ones are toHaveScreenshot's,
 * in tests/e2e/*-snapshots), and every run wrote 142 of them (decision 170).
 */
export const TAKE_PICTURES = Boolean(process.env.SCREENSHOTS)

export async function picture(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  if (TAKE_PICTURES) await page.screenshot({ path: `test-results/screenshots/${name}.png`, ...options })
}

async function shootAtBothWidths(page: Page, info: TestInfo, name: string) {
  const original = page.viewportSize() ?? { width: 1280, height: 800 }
  for (const width of TAKE_PICTURES ? [360, 1280] : [360]) {
    await page.setViewportSize({ width, height: 800 })
    if (width === 360) {
      const scrollWidth = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0)
      expect(scrollWidth, `${name} scrolls sideways at 360 px`).toBeLessThanOrEqual(360)
    }
    await picture(page, `${name}-${info.project.name}-${width}`, { fullPage: true })
  }
  await page.setViewportSize(original)
}

/** An address in 198.18.0.0/15 (set aside for tests), as a proxy in front of the studio would report it. */
function clientAddressOfItsOwn(): string {
  const byte = () => Math.floor(Math.random() * 256)
  return `198.${18 + (byte() % 2)}.${byte()}.${byte()}`
}

/** Registers a fresh user, verifies the address with the mailed token and leaves the browser
 * context signed in (the verify answer sets the session cookie on the context). The user signs up
 * from an address of their own, as real users do: the studios of this suite trust their loopback
 * proxy (TRUST_PROXY in playwright.config.ts), so the per-address budgets for sign-ups and tokens are
 * not all spent by 127.0.0.1. */
export async function signInNewUser(page: Page): Promise<string> {
  const email = `tools-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const headers = { 'x-forwarded-for': clientAddressOfItsOwn() }
  const register = await page.request.post('/api/auth/register/', {
    data: { email, password: 'correct horse battery staple 42', first_name: 'Tess', last_name: 'Tools' },
    headers,
  })
  expect(register.status(), await register.text()).toBe(201)
  const token = await waitForVerificationToken(email)
  const verify = await page.request.post('/api/auth/verify-email/', { data: { token }, headers })
  expect(verify.status(), await verify.text()).toBe(200)
  return email
}

/** The newest verification link mailed to `email` in a server's outbox (this suite's by default). */
export async function waitForVerificationLink(email: string, mailDir = MAIL_DIR): Promise<URL> {
  return waitForMail(mailDir, (mail) => {
    if (mail.to.toLowerCase() !== email.toLowerCase()) return undefined
    const link = mail.link ?? /https?:\/\/\S+/.exec(mail.text)?.[0]
    return link && new URL(link).searchParams.get('token') ? new URL(link) : undefined
  })
}

/** The token of the newest verification mail to `email` in a server's outbox (this suite's by default). */
export async function waitForVerificationToken(email: string, mailDir = MAIL_DIR): Promise<string> {
  return (await waitForVerificationLink(email, mailDir)).searchParams.get('token')!
}

/** Spends a visitor's whole balance through the API in this browser context (1 credit a run). */
export async function spendVisitorCredits(page: Page) {
  const image = { name: 'router.png', mimeType: 'image/png', buffer: await readFile(fixture('photos/product-router-alpha-groundtruth.png')) }
  for (let run = 0; run < 10; run++) {
    const response = await page.request.post('/api/remove-bg/', { multipart: { image } })
    if (response.status() === 402) return
    expect(response.status(), await response.text()).toBe(200)
    if (response.headers()['x-credits-remaining'] === '0') return
  }
  throw new Error('the visitor balance never ran out')
}
