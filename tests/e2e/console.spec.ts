// The operator console, with JavaScript (project js) and without (project no-js): an account named
// in OPERATOR_EMAILS finds a user by email, grants them credits with a reason (a refusal shows the
// operator channel's message), finds their team and changes its seats and balance, looks at the
// queue, then filters the audit log and downloads it as CSV. A signed-in user who is not an operator
// gets the site's 404; a cross-site POST with the operator's cookies is refused. Every console screen passes axe at 1280 and 360 px wide.
import { readFile } from 'node:fs/promises'
import type { APIRequestContext, Page, TestInfo } from '@playwright/test'
import { expect, test } from './support/test'
import { OPERATOR_EMAILS } from './support/operators'
import { isNoJs, waitForVerificationToken } from './support/tools'
import { expectAccessible } from './support/workspace'

const PASSWORD = 'correct horse battery staple 42'

/** Registers and verifies `email` in `api` (a page's request context: its cookies sign the page in). */
async function signUp(api: APIRequestContext, email: string) {
  const register = await api.post('/api/auth/register/', { data: { email, password: PASSWORD, first_name: 'Cass', last_name: 'Console' } })
  expect(register.status(), await register.text()).toBe(201)
  const verify = await api.post('/api/auth/verify-email/', { data: { token: await waitForVerificationToken(email) } })
  expect(verify.status(), await verify.text()).toBe(200)
}

const operatorFor = (info: TestInfo) => OPERATOR_EMAILS[isNoJs(info) ? 1 : 0]

async function accessibleAtBothSizes(page: Page, label: string) {
  await page.setViewportSize({ width: 1280, height: 800 })
  await expectAccessible(page, `${label} at 1280`)
  await page.setViewportSize({ width: 360, height: 800 })
  await expectAccessible(page, `${label} at 360`)
  await page.setViewportSize({ width: 1280, height: 800 })
}

test('an operator grants credits, changes seats, reads the queue and exports the audit log', async ({ page, request }, info) => {
  // Ten axe runs (five screens at two widths; without JavaScript each on a scripted twin page).
  test.setTimeout(180_000)
  const tag = `${info.project.name}-${Date.now()}`
  const customer = `customer-${tag}@example.test`
  const teamName = `Console team ${tag}`

  // A customer with a team (in their own request context), and the operator signed in on the page.
  await signUp(request, customer)
  const team = await request.post('/api/teams/', { data: { name: teamName } })
  expect(team.status(), await team.text()).toBe(201)
  const customerConsole = await request.get('/console')
  expect(customerConsole.status()).toBe(404)
  // Only an operator's header links to the console.
  expect(await (await request.get('/pricing')).text()).not.toContain('href="/console"')
  await signUp(page.request, operatorFor(info))

  await page.goto('/pricing')
  await page.getByRole('banner').getByRole('link', { name: 'Console', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Accounts' })).toBeVisible()
  await page.getByLabel('Search by email, name or team').fill(customer)
  await page.getByRole('button', { name: 'Search' }).click()
  const users = page.getByRole('region', { name: 'Users' })
  await expect(users.getByRole('link', { name: customer })).toBeVisible()
  await accessibleAtBothSizes(page, 'console accounts')
  await users.getByRole('link', { name: customer }).click()
  await expect(page.getByRole('heading', { level: 1, name: customer })).toBeVisible()

  // A refusal names the rule; a grant shows its notice once, and the balance.
  await page.getByLabel('Amount').fill('-1000')
  await page.getByLabel('Reason').fill('Take back')
  await page.getByRole('button', { name: 'Grant credits' }).click()
  await expect(page.getByRole('alert')).toContainText('the balance is only')
  await page.getByLabel('Amount').fill('25')
  await page.getByLabel('Reason').fill('=Goodwill for the outage')
  await page.getByRole('button', { name: 'Grant credits' }).click()
  await expect(page.getByTestId('console-notice')).toContainText('Credits granted.')
  await expect(page.getByRole('region', { name: 'Latest ledger rows' })).toContainText('=Goodwill for the outage')
  await expect(page.getByRole('region', { name: 'Audit entries', exact: true })).toContainText('Credits granted to a user')
  await accessibleAtBothSizes(page, 'console user')
  // The operator's cookies sent from another site's form are refused (the app's same-origin check).
  const forged = await page.request.post(new URL(page.url()).pathname, {
    headers: { Origin: 'https://evil.example' },
    form: { intent: 'grant', amount: '1000', reason: 'Forged' },
  })
  expect(forged.status()).toBe(403)
  await page.reload()
  await expect(page.getByTestId('console-notice')).toHaveCount(0)

  // The customer's team: seats and a grant.
  await page.getByRole('link', { name: teamName }).click()
  await expect(page.getByRole('heading', { level: 1, name: teamName })).toBeVisible()
  await page.getByLabel('Seats', { exact: true }).fill('9')
  await page.getByRole('button', { name: 'Change seats' }).click()
  await expect(page.getByTestId('console-notice')).toContainText('Seats changed.')
  await expect(page.getByLabel('Seats', { exact: true })).toHaveValue('9')
  await page.getByLabel('Amount').fill('100')
  await page.getByLabel('Reason').fill('Pilot')
  await page.getByRole('button', { name: 'Grant credits' }).click()
  await expect(page.getByTestId('console-notice')).toContainText('Credits granted.')
  await expect(page.getByRole('region', { name: 'Audit entries', exact: true })).toContainText('Team seats changed')
  await accessibleAtBothSizes(page, 'console team')

  await page.getByRole('link', { name: 'Queue and webhooks' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Queue and webhooks' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Failed jobs' })).toBeVisible()
  await accessibleAtBothSizes(page, 'console queue')

  // The audit log, filtered to the operator's user grants, and its CSV.
  await page.getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible()
  await page.getByLabel('Action').selectOption({ label: 'Credits granted to a user' })
  await page.getByLabel('Actor (email, user id or cli)').fill(operatorFor(info))
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/action=credits\.grant/)
  const entries = page.getByRole('region', { name: 'Audit entries', exact: true })
  await expect(entries.getByRole('row')).toHaveCount(2) // the header and the one grant
  await expect(entries).toContainText(customer)
  await accessibleAtBothSizes(page, 'console audit log')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()])
  expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/)
  const csv = (await readFile(await download.path())).toString('utf8').split('\r\n')
  expect(csv[0]).toBe('id,created_at,actor,actor_email,action,target_type,target_id,details')
  expect(csv).toHaveLength(3)
  expect(csv[1]).toContain(`,${operatorFor(info)},credits.grant,user,`)
  expect(csv[1]).toContain('""reason"":""=Goodwill for the outage""')
})
