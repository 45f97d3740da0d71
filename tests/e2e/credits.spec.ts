// The /credits screen (spec §2), with JavaScript and without: a guest's view, a visitor with a
// ledger, and a signed-in user whose numbers are polled every 4 s.
import { screenshots, signInNewUser } from './support/tools'
import { expect, test, UNTIL_TEST_TIMEOUT } from './support/test'


test('a guest sees the allowance, the paused notice, the packages and the empty activity', async ({ page }, info) => {
  await page.goto('/credits')
  await expect(page.getByRole('heading', { level: 1, name: 'Credits' })).toBeVisible()

  const balance = page.getByRole('region', { name: 'Current balance' })
  await expect(balance.getByTestId('credits-balance')).toHaveText('5')
  await expect(balance.getByRole('progressbar', { name: 'Credits remaining' })).toHaveAttribute('aria-valuenow', '100')
  await expect(page.getByRole('region', { name: 'Lifetime usage' })).toContainText('0 usage events')
  await expect(page.getByRole('region', { name: 'Bonuses & top-ups' })).toBeVisible()
  await expect(page.getByTestId('credits-button').first()).toHaveText(/5 credits/)

  await expect(page.getByText('Purchasing temporarily paused')).toBeVisible()
  const alert = page.getByRole('alert').filter({ hasText: 'Sign in to purchase credits' })
  await expect(alert).toBeVisible()
  await expect(alert.getByRole('link')).toHaveAttribute('href', /^\/login/)

  const packages = page.getByRole('region', { name: 'Credit packages' })
  for (const text of ['100 credits', '$9', '500 credits', '$39', 'Most popular', '2,000 credits', '$129', 'Best value']) {
    await expect(packages.getByText(text, { exact: true })).toBeVisible()
  }
  const buttons = packages.getByRole('button', { name: 'Purchases paused' })
  await expect(buttons).toHaveCount(3)
  for (const button of await buttons.all()) await expect(button).toBeDisabled()
  await expect(packages.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', '/contact')

  await expect(page.getByText('No credit activity yet. Run a tool to see it here.')).toBeVisible()

  // Also checks that a 360 px phone never scrolls sideways.
  await screenshots(page, info, 'credits-guest')
})

test('a visitor with an account sees its own ledger', async ({ page }) => {
  // The balance endpoint creates the visitor; the browser context keeps its cookie.
  const created = await page.request.get('/api/credits/balance/')
  expect(await created.json()).toEqual({ source: 'visitor', balance: 5 })
  await page.goto('/credits')
  const activity = page.getByTestId('credit-activity')
  await expect(activity.getByRole('listitem')).toHaveCount(1)
  await expect(activity).toContainText('Bonus')
  await expect(activity).toContainText('Guest credits')
  await expect(activity).toContainText('+5')
  await expect(page.getByRole('region', { name: 'Bonuses & top-ups' })).toContainText('1')
})

test('a signed-in user sees the welcome bonus, no guest alert, and polling when JavaScript runs', async ({ page }, info) => {
  await signInNewUser(page)
  await page.goto('/credits')
  await expect(page.getByRole('region', { name: 'Current balance' }).getByTestId('credits-balance')).toHaveText('50')
  await expect(page.getByTestId('credit-activity')).toContainText('Welcome bonus')
  await expect(page.getByText('Sign in to purchase credits')).toHaveCount(0)
  await expect(page.getByText('Purchasing temporarily paused')).toBeVisible()
  await screenshots(page, info, 'credits-user')

  if (info.project.name === 'js') {
    // Each poll re-runs the loaders: two data requests arrive without any click (how soon is the page's
    // interval, not judged here: a busy machine delays timers, decision 170).
    let polls = 0
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('.data')) polls++
    })
    await expect.poll(() => polls, UNTIL_TEST_TIMEOUT).toBeGreaterThanOrEqual(2)
  }
})
