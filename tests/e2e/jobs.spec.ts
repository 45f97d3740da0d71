// A run is a job (issue 10): the page follows its real progress and the result arrives, with
// JavaScript (polling GET /api/jobs/<id>/) and without it (the page at ?job=<id> reloads itself).
// The enhancer on a 300×300 photo runs tile by tile for a few seconds, so progress has room to move.
import { type Page } from '@playwright/test'
import { fixture, isNoJs } from './support/tools'
import { expect, test } from './support/test'

/** Reads the progress percentage until the result shows, returning every value seen. */
async function watchProgress(page: Page): Promise<number[]> {
  const seen: number[] = []
  const box = page.getByTestId('download-box')
  for (let i = 0; i < 1500 && !(await box.isVisible().catch(() => false)); i++) {
    const text = await page.getByTestId('progress-percent').textContent({ timeout: 1_000 }).catch(() => null)
    const percent = text ? Number.parseInt(text, 10) : Number.NaN
    if (Number.isFinite(percent) && seen[seen.length - 1] !== percent) seen.push(percent)
    await page.waitForTimeout(100)
  }
  return seen
}

test('the enhancer\'s progress moves with the work, and the result arrives', async ({ page }, info) => {
  // Both projects' runs share one worker slot on a 2-core machine.
  test.setTimeout(180_000)
  await page.goto('/tools/image-enhancer')
  if (!isNoJs(info)) await expect(page.locator('form[data-enhanced="true"]')).toBeVisible()
  await page.getByTestId('file-input').setInputFiles(fixture('photos/group-nasa-astronaut-class.jpg'))
  await page.getByTestId('process-button').click()
  await expect(page).toHaveURL(/[?&]job=[0-9a-f-]{36}/, { timeout: 30_000 })
  const seen = await watchProgress(page)
  await expect(page.getByTestId('download-box')).toContainText('Enhancement ready', { timeout: 120_000 })
  // Before the result the bar showed the job running (a value short of 100, rising). With JavaScript
  // it is read every 400 ms, so several values; without it the page reloads once a second, and the
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
