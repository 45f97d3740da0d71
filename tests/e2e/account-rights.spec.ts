// The user's rights from the dashboard (decision 171), with JavaScript (project js) and without
// (project no-js): download one's data as a zip, then delete the account after typing the password
// (a wrong one is refused on the form). Afterwards the browser is signed out, the mail confirms it,
// and the same address signs up again as a new account.
import { readFile } from 'node:fs/promises'
import { ACCOUNT_DELETED, WRONG_PASSWORD } from '../../app/features/rights/messages'
import { readZip } from '../support/zip'
import { MAIL_DIR, waitForMail } from './support/mail'
import { expect, test } from './support/test'
import { signInNewUser, waitForVerificationToken } from './support/tools'

const PASSWORD = 'correct horse battery staple 42'

test('download my data, then delete my account, confirmed with the password', async ({ page }) => {
  const email = await signInNewUser(page)
  await page.goto('/dashboard')
  const section = page.getByRole('region', { name: 'Your data' })
  await expect(section).toBeVisible()

  const downloading = page.waitForEvent('download')
  await section.getByRole('button', { name: 'Download my data' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toMatch(/^facet-studio-export-\d{4}-\d{2}-\d{2}\.zip$/)
  const files = await readZip(await readFile(await download.path()))
  const data = JSON.parse(files.get('facet-studio-export.json')!.toString('utf8'))
  expect(data.account).toMatchObject({ email, email_verified: true })
  expect(data.credits.ledger.map((e: { description: string }) => e.description)).toContain('Welcome bonus')

  await section.getByRole('link', { name: 'Delete my account' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Delete your account' })).toBeVisible()
  await expect(page.getByText('Your balance of 50 credits will be forfeited.')).toBeVisible()
  await page.getByLabel('Your password', { exact: true }).fill('not my password')
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page.getByRole('alert')).toContainText(WRONG_PASSWORD)

  await page.getByLabel('Your password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await expect(page).toHaveURL(/\/account\/deleted$/)
  await expect(page.getByRole('heading', { level: 1, name: ACCOUNT_DELETED })).toBeVisible()

  // Signed out: the dashboard sends this browser to sign in, and the old password signs in nowhere.
  await page.goto('/dashboard')
  await expect(page).toHaveURL(/\/login\?from=%2Fdashboard/)
  const signIn = await page.request.post('/api/auth/login/', { data: { email, password: PASSWORD } })
  expect(signIn.status()).toBe(400)

  const mail = await waitForMail(MAIL_DIR, (m) => (m.to === email && m.subject === 'Your Facet Studio account was deleted' ? m : undefined))
  expect(mail.text).toContain('deleted at your request')

  // The address is free: it signs up again, as a new account (its own verification link, not the first one).
  const firstToken = await waitForVerificationToken(email)
  const again = await page.request.post('/api/auth/register/', { data: { email, password: 'another good password 7' } })
  expect(again.status()).toBe(201)
  const token = await waitForMail(MAIL_DIR, (m) => {
    const found = m.to === email && m.link ? new URL(m.link).searchParams.get('token') : null
    return found && found !== firstToken ? found : undefined
  })
  const verified = await page.request.post('/api/auth/verify-email/', { data: { token } })
  expect(verified.status()).toBe(200)
  expect((await verified.json()).user.email).toBe(email)
})
