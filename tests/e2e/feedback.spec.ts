// "This result is wrong" from the workspace (issue 36 item 4; decision 175), with JavaScript and without:
// a cutout reported with a note under its result. With JavaScript the answer shows in place; without, the
// form's page answers, with the way back to the result. A second report of the same result updates it.
import { fixture, isNoJs } from './support/tools'
import { expectAccessible } from './support/workspace'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'

test('a cutout reported as wrong from the workspace, with a note', async ({ page }, info) => {
  test.setTimeout(180_000)
  await page.goto('/tools/background-remover')
  await page.getByTestId('file-input').setInputFiles(fixture('photos/noface-rocket.jpg'))
  await page.getByTestId('process-button').click()
  const box = page.getByTestId('download-box')
  await expect(box).toContainText('Cutout ready', UNTIL_TEST_TIMEOUT)
  const resultPage = page.url()

  await page.getByTestId('report-wrong').getByText('This result is wrong').click()
  const form = page.getByRole('form', { name: 'This result is wrong' })
  await form.getByLabel('What is wrong? (optional)').fill('The fins are cut off.')
  await expect(form).toContainText('deleted with the result 24 hours after the run')
  await expectAccessible(page, 'the workspace with the report form open')
  await form.getByRole('button', { name: 'Send report' }).click()

  if (isNoJs(info)) {
    // The form's own page answers, and leads back to the result.
    await expect(page.getByRole('heading', { level: 1, name: 'This result is wrong' })).toBeVisible()
    await expect(page.getByRole('status').filter({ hasText: 'Reported. Thank you.' })).toBeVisible()
    expect(new URL(page.url()).pathname).toMatch(/^\/feedback\/[0-9a-f-]{36}$/)
    await expectAccessible(page, 'the report page')
    await page.getByRole('link', { name: 'Back to the result' }).click()
    expect(page.url()).toBe(resultPage)
    return
  }
  // In place: the page stays, the answer shows under the form; a second report updates the first.
  await expect(form.getByRole('status')).toHaveText('Reported. Thank you.')
  expect(page.url()).toBe(resultPage)
  await form.getByLabel('What is wrong? (optional)').fill('The fins and the flame.')
  await form.getByRole('button', { name: 'Send report' }).click()
  await expect(form.getByRole('status')).toHaveText('Your report was updated. Thank you.')
})
