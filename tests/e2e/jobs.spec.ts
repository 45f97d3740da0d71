// A run is a job (issue 10): the page follows its real progress and the result arrives, with
// JavaScript (polling GET /api/jobs/<id>/) and without it (the page at ?job=<id> reloads itself).
// The enhancer on a 300×300 photo runs tile by tile for a few seconds, so progress has room to move.
import { type Page, type Request } from '@playwright/test'
import sharp from 'sharp'
import { fixture, isNoJs } from './support/tools'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'

/**
 * Every progress percentage the page shows, as it shows it: with JavaScript each change of the
 * percentage (a MutationObserver in the page), without it each page the browser receives (the page
 * reloads itself). Nothing is sampled, so a value is never missed between two looks.
 */
async function recordProgress(page: Page, noJs: boolean): Promise<number[]> {
  const seen: number[] = []
  const note = (text: string | null | undefined) => {
    const percent = text ? Number.parseInt(text, 10) : Number.NaN
    if (Number.isFinite(percent) && seen[seen.length - 1] !== percent) seen.push(percent)
  }
  if (noJs) {
    page.on('response', async (response) => {
      if (response.request().resourceType() !== 'document' || !/[?&]job=/.test(response.url())) return
      const html = await response.text().catch(() => '')
      note(/data-testid="progress-percent"[^>]*>([^<]*)</.exec(html)?.[1])
    })
  } else {
    await page.exposeFunction('noteProgress', note)
    await page.addInitScript(() => {
      const report = () => {
        const text = document.querySelector('[data-testid="progress-percent"]')?.textContent
        if (text) (window as unknown as { noteProgress: (t: string) => void }).noteProgress(text)
      }
      new MutationObserver(report).observe(document, { subtree: true, childList: true, characterData: true })
    })
  }
  return seen
}

test('the enhancer\'s progress moves with the work, and the result arrives', async ({ page }, info) => {
  // Both projects' runs share one worker slot on a 2-core machine.
  test.setTimeout(180_000)
  const seen = await recordProgress(page, isNoJs(info))
  await page.goto('/tools/image-enhancer')
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('photos/group-nasa-astronaut-class.jpg'))
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready', UNTIL_TEST_TIMEOUT)
  // Before the result the bar showed the job running (a value short of 100, rising). With JavaScript
  // the page reads it every 400 ms, so several values; without it the page reloads once a second, and the
  // enhancer's own work holds the server's event loop for seconds at a time (web + worker in one
  // process), so one reading may be all there is before the result.
  const before = seen.filter((p) => p > 0 && p < 100)
  expect(before.length, `progress seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(isNoJs(info) ? 1 : 2)
  expect([...before].sort((a, b) => a - b)).toEqual(before)
  if (!isNoJs(info)) await expect(page.getByTestId('progress-percent')).toHaveText('100%')

  // Reloading the job's address shows the finished result again, without running (or paying) twice.
  await page.reload()
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready')
})

test('a page opened on an unfinished job reloads itself only without JavaScript; with it the page follows the job', async ({ page }, info) => {
  test.setTimeout(240_000)
  const noJs = isNoJs(info)
  // Every page the browser receives at the job's address (the enhancer's page at ?job=<id>), as received.
  const received: Promise<string>[] = []
  page.on('response', (response) => {
    if (response.request().resourceType() === 'document' && /[?&]job=/.test(response.url())) received.push(response.text().catch(() => ''))
  })
  // Larger than the other journeys' photo (0.4 MP, enhanced 4×): the job is still running when its page loads.
  const photo = await sharp(fixture('photos/group-nasa-astronaut-class.jpg')).resize(960, 420, { fit: 'fill' }).jpeg().toBuffer()
  await page.goto('/tools/image-enhancer')
  if (!noJs) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles({ name: 'group.jpg', mimeType: 'image/jpeg', buffer: photo })
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  // With JavaScript the run was sent by the page (no navigation): open its address as a reload or a shared link would.
  let pagesWhenHydrated = 0
  if (!noJs) {
    // Returns once the page has hydrated (support/test.ts).
    await page.reload()
    pagesWhenHydrated = received.length
  }
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready', UNTIL_TEST_TIMEOUT)
  const pages = await Promise.all(received)
  // The first page showed the job unfinished, with the reload for browsers without scripts only.
  expect(pages[0]).toMatch(/<noscript><meta http-equiv="refresh" content="1"\/?><\/noscript>/)
  if (noJs) expect(pages.length).toBeGreaterThan(1)
  // Scripts on: followed to the result by polling, never reloaded under its own scripts once they ran (a
  // busy machine may hydrate after the job ended: the page's few lines then reloaded it once, before).
  else expect(pages).toHaveLength(pagesWhenHydrated)
})

test('with JavaScript whose scripts have not come, a run tapped early is followed to its result by the page itself', async ({ page }, info) => {
  test.skip(isNoJs(info), 'without JavaScript the page reloads itself: the journey above')
  test.setTimeout(240_000)
  // The page's scripts never arrive (a slow link that has not delivered them yet): the form posts as it does
  // without JavaScript, and the page opened on the job must follow it with what the HTML carries.
  const held: Array<{ abort: () => Promise<void> }> = []
  await page.route(/\/assets\/.*\.js(\?.*)?$/, (route) => void held.push(route))
  const received: Promise<string>[] = []
  page.on('response', (response) => {
    if (response.request().resourceType() === 'document' && /[?&]job=/.test(response.url())) received.push(response.text().catch(() => ''))
  })
  const photo = await sharp(fixture('photos/group-nasa-astronaut-class.jpg')).resize(960, 420, { fit: 'fill' }).jpeg().toBuffer()
  // The frame's own goto: the page's waits for hydration, which never comes here.
  await page.mainFrame().goto('/tools/image-enhancer', { waitUntil: 'domcontentloaded' })
  await page.getByTestId('file-input').setInputFiles({ name: 'group.jpg', mimeType: 'image/jpeg', buffer: photo })
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready', UNTIL_TEST_TIMEOUT)
  await expect(page.getByRole('link', { name: /^Download / })).toBeVisible()
  await expect(page.locator('html[data-hydrated]')).toHaveCount(0)
  const pages = await Promise.all(received)
  // The job's page arrived unfinished, carrying the follower; it was reloaded once the job had ended.
  expect(pages[0]).toContain('d.dataset.hydrated')
  // A page following the user's run shows no demo ("Upload your own to see it enhanced") and fetches none of its pictures.
  expect(pages[0]).not.toContain('data-testid="demo-preview"')
  expect(pages.length).toBeGreaterThan(1)
  for (const route of held.splice(0)) await route.abort().catch(() => {})
})

test('with JavaScript whose scripts have not come, a run sent stops the page\'s unfinished downloads at once, before its answer', async ({ page }, info) => {
  test.skip(isNoJs(info), 'without JavaScript there are no scripts to stop')
  test.setTimeout(240_000)
  // Decision 192: on a slow link the page's scripts would otherwise share the link with the upload until
  // the next page arrived. Here they never arrive, and the upload is answered only once every one of them
  // has been stopped: without the stop they would end only when the answer's page came, and the run would
  // never be answered.
  const heldScripts = new Set<Request>()
  /** The tool page's own scripts, held when the run is sent (the answer's page asks for its own). */
  let ofThePage: Set<Request> | null = null
  const stopped = new Set<Request>()
  let everyScriptStopped!: () => void
  const scriptsStopped = new Promise<void>((resolve) => (everyScriptStopped = resolve))
  await page.route(/\/assets\/.*\.js(\?.*)?$/, (route) => void heldScripts.add(route.request()))
  page.on('requestfailed', (request) => {
    if (!ofThePage?.has(request)) return
    stopped.add(request)
    if (stopped.size === ofThePage.size) everyScriptStopped()
  })
  await page.route(/\/tools\/face-restorer(\?.*)?$/, async (route) => {
    if (route.request().method() !== 'POST') return route.continue()
    await scriptsStopped
    await route.continue()
  })
  await page.mainFrame().goto('/tools/face-restorer', { waitUntil: 'domcontentloaded' })
  await page.getByTestId('file-input').setInputFiles(fixture('photos/degraded-face-astronaut-128px-q35.jpg'))
  ofThePage = new Set(heldScripts)
  expect(ofThePage.size).toBeGreaterThan(0)
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 60_000 })
  expect(stopped.size).toBe(ofThePage.size)
  await expect(page.locator('html[data-hydrated]')).toHaveCount(0)
})

test('with JavaScript, a page reloaded while its blur runs shows the blurred picture and its download at the end', async ({ page }, info) => {
  test.skip(isNoJs(info), 'without JavaScript the page follows by reloading itself: the journey above')
  test.setTimeout(240_000)
  const received: Promise<string>[] = []
  page.on('response', (response) => {
    if (response.request().resourceType() === 'document' && /[?&]job=/.test(response.url())) received.push(response.text().catch(() => ''))
  })
  // A longer run first, from another tab of the same visitor: the blur waits behind it for the worker's slot,
  // so the reload below finds it unfinished however fast the machine.
  const ahead = await page.context().newPage()
  await ahead.goto('/tools/image-enhancer')
  await expect(ahead.locator('form[data-enhanced="true"]')).toBeVisible()
  const enhancerInput = await sharp(fixture('photos/group-nasa-astronaut-class.jpg')).resize(960, 420, { fit: 'fill' }).jpeg().toBuffer()
  await ahead.getByTestId('file-input').setInputFiles({ name: 'ahead.jpg', mimeType: 'image/jpeg', buffer: enhancerInput })
  await ahead.getByTestId('process-button').click()
  await expect(ahead).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  const photo = await sharp(fixture('photos/group-nasa-astronaut-class-2.png')).resize(4000, 3000, { fit: 'fill' }).jpeg().toBuffer()
  await page.goto('/tools/face-blurrer')
  await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles({ name: 'group.jpg', mimeType: 'image/jpeg', buffer: photo })
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  await page.reload()
  // No file was chosen on this page: the picture shown is the job's stored result.
  await expect(page.getByRole('img', { name: 'Blurred output' })).toBeVisible(UNTIL_TEST_TIMEOUT)
  await expect(page.getByRole('link', { name: /^Download / })).toBeVisible()
  await expect(page.getByTestId('faces-detected')).toHaveText('Faces detected: 8')
  const pages = await Promise.all(received)
  expect(pages).toHaveLength(1)
  expect(pages[0]).toMatch(/<noscript><meta http-equiv="refresh"/)
})
