// A run is a job (issue 10): the page follows its real progress and the result arrives, with
// JavaScript (polling GET /api/jobs/<id>/) and without it (the page at ?job=<id> reloads itself).
// The enhancer on a 300×300 photo runs tile by tile for a few seconds, so progress has room to move.
import { type Page } from '@playwright/test'
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
