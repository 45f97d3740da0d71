// The dashboard's Developers section, with JavaScript (project js) and without (project no-js):
// create a key and see it once, use it, revoke it after a confirmation; register and delete a
// webhook endpoint. The /api answers to a key carry the rate-limit headers.
import { request as apiRequest, type Page } from '@playwright/test'
import { KEY_INVALID, KEY_MALFORMED, KEY_REVOKED } from '../../app/features/api-keys/messages'
import { expect, test } from './support/test'
import { picture, signInNewUser } from './support/tools'

async function openDevelopers(page: Page) {
  await page.goto('/dashboard')
  await expect(page.getByRole('heading', { level: 2, name: 'Developers' })).toBeVisible()
}

async function bearer(baseURL: string, key: string) {
  const context = await apiRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${key}` } })
  const response = await context.get('/api/keys/')
  const result = { status: response.status(), headers: response.headers(), body: await response.json() }
  await context.dispose()
  return result
}

test('an API key: created, shown once, used, revoked after a confirmation', async ({ page, baseURL, context }, info) => {
  if (info.project.name === 'js') await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await signInNewUser(page)
  await openDevelopers(page)
  await expect(page.getByText('No API keys yet.')).toBeVisible()

  await page.getByLabel('Key name').fill('Shop sync')
  await page.getByLabel('Environment').selectOption('test')
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page).toHaveURL(/\/dashboard#developers$/)
  const shown = page.getByTestId('new-api-key')
  await expect(shown).toHaveValue(/^fs_test_[0-9A-Za-z]{36}$/)
  const key = await shown.inputValue()
  expect(page.url()).not.toContain(key)
  if (info.project.name === 'js') {
    await page.getByRole('button', { name: 'Copy' }).click()
    await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
  } else {
    await expect(page.getByRole('button', { name: 'Copy' })).toHaveCount(0)
  }

  // Shown once: a reload no longer has it.
  await page.reload()
  await expect(page.getByTestId('new-api-key')).toHaveCount(0)
  await expect(page.locator('body')).not.toContainText(key)
  const row = page.getByTestId('api-key-row')
  await expect(row).toHaveCount(1)
  await expect(row).toContainText('Shop sync')
  await expect(row).toContainText(`${key.slice(0, 12)}…`)
  await expect(row).toContainText('test')
  await expect(row).toContainText('Last used never')
  await expect(row).toContainText('0 runs, 0 credits')

  // Usable on a phone: nothing scrolls sideways at 360 px.
  const original = page.viewportSize()!
  await page.setViewportSize({ width: 360, height: 800 })
  expect(await page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0)).toBeLessThanOrEqual(360)
  await picture(page, `developers-${info.project.name}-360`, { fullPage: true })
  await page.setViewportSize(original)

  const used = await bearer(baseURL!, key)
  expect(used.status).toBe(200)
  expect(used.body.results).toEqual([expect.objectContaining({ name: 'Shop sync', environment: 'test', prefix: key.slice(0, 12) })])
  expect(used.headers['ratelimit-limit']).toBe('120')
  expect(Number(used.headers['ratelimit-remaining'])).toBeLessThan(120)
  expect(Number(used.headers['ratelimit-reset'])).toBeGreaterThan(0)
  expect(used.headers['x-facet-environment']).toBe('test')
  const malformed = await bearer(baseURL!, key.slice(0, -1))
  expect(malformed).toMatchObject({ status: 401, body: { error: KEY_MALFORMED } })
  expect(malformed.headers['www-authenticate']).toBe('Bearer')

  await page.reload()
  await expect(row).toContainText('Last used just now')

  await row.getByRole('link', { name: 'Revoke Shop sync' }).click()
  await expect(row).toContainText('Revoke “Shop sync”? Scripts using it stop working at once.')
  await row.getByRole('link', { name: 'Cancel' }).click()
  await expect(row.getByRole('button', { name: 'Yes, revoke' })).toHaveCount(0)
  await row.getByRole('link', { name: 'Revoke Shop sync' }).click()
  await row.getByRole('button', { name: 'Yes, revoke' }).click()
  await expect(page.getByText(KEY_REVOKED)).toBeVisible()
  await expect(page.getByTestId('api-key-row')).toHaveCount(0)
  expect(await bearer(baseURL!, key)).toMatchObject({ status: 401, body: { error: KEY_INVALID } })
})

test('a key name is required, and webhooks refuse private targets and show their secret once', async ({ page, baseURL }) => {
  await signInNewUser(page)
  // The JSON endpoints on the real server, with the session cookie.
  const made = await page.request.post('/api/keys/', { data: { name: 'From a script', environment: 'live' } })
  expect(made.status(), await made.text()).toBe(201)
  const { id, key } = (await made.json()) as { id: string; key: string }
  expect((await bearer(baseURL!, key)).headers['x-facet-environment']).toBe('live')
  expect((await page.request.delete(`/api/keys/${id}/`)).status()).toBe(204)
  expect((await bearer(baseURL!, key)).status).toBe(401)
  await openDevelopers(page)

  // Without JavaScript the browser's own check would stop an empty name; a blank one reaches the server.
  await page.getByLabel('Key name').fill('   ')
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page.getByRole('alert')).toContainText('Give the key a name.')

  await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hook')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await expect(page.getByRole('alert')).toContainText('non-public address')

  await page.getByLabel('Endpoint URL').fill('https://93.184.215.14/facet')
  await page.getByRole('checkbox', { name: 'batch.completed' }).uncheck()
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await expect(page.getByTestId('new-webhook-secret')).toHaveValue(/^whsec_/)
  const secret = await page.getByTestId('new-webhook-secret').inputValue()
  const list = page.getByTestId('webhooks')
  await expect(list).toContainText('https://93.184.215.14/facet')
  await expect(list).toContainText('job.succeeded, job.failed')
  await expect(list).toContainText('No deliveries yet.')
  await page.reload()
  await expect(page.locator('body')).not.toContainText(secret)
  await page.getByRole('button', { name: 'Delete endpoint https://93.184.215.14/facet' }).click()
  await expect(page.getByText('The webhook endpoint was deleted.')).toBeVisible()
  await expect(page.getByText('No webhook endpoints yet.')).toBeVisible()
})
