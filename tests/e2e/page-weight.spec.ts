// Every page's JavaScript, as it travels (compressed), within the budget: signed out, signed in and
// as an operator (scripts/page-weight.ts lists the pages; its unit test keeps the list in step with
// app/routes). The production build the journeys run on is the one weighed.
import type { APIRequestContext } from '@playwright/test'
import { JS_BUDGET_BYTES, measurePage, overBudget, PAGES, type PageWeight, type Visitor } from '../../scripts/page-weight'
import { expect, test } from './support/test'
import { OPERATOR_EMAILS } from './support/operators'
import { fixture, waitForVerificationToken } from './support/tools'
import { readFile } from 'node:fs/promises'

const PASSWORD = 'correct horse battery staple 42'

async function signUp(api: APIRequestContext, email: string): Promise<string> {
  const register = await api.post('/api/auth/register/', { data: { email, password: PASSWORD } })
  expect(register.status(), await register.text()).toBe(201)
  const verify = await api.post('/api/auth/verify-email/', { data: { token: await waitForVerificationToken(email) } })
  expect(verify.status(), await verify.text()).toBe(200)
  return ((await verify.json()) as { user: { id: string } }).user.id
}

async function cookieOf(api: APIRequestContext): Promise<string> {
  return (await api.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ')
}

test('every page loads at most 120 KB of compressed JavaScript, signed in or not', { tag: '@js-only' }, async ({ page, request, baseURL }, info) => {
  // Only with JavaScript: what a page sends does not depend on the browser running it.
  test.setTimeout(120_000)

  // An account with a team of its own, and an operator (its own request context, its own cookie).
  const userId = await signUp(page.request, `weight-${Date.now()}@example.test`)
  const team = await page.request.post('/api/teams/', { data: { name: 'Weighed team' } })
  expect(team.status(), await team.text()).toBe(201)
  const teamId = ((await team.json()) as { id: string }).id
  await signUp(request, OPERATOR_EMAILS[2]!)
  // A cutout of the account's, for its correction page.
  const image = { name: 'router.png', mimeType: 'image/png', buffer: await readFile(fixture('photos/product-router-alpha-groundtruth.png')) }
  const cutout = await page.request.post('/api/remove-bg/', { multipart: { image } })
  expect(cutout.status(), await cutout.text()).toBe(200)
  const jobId = cutout.headers()['x-facet-job-id']!

  const cookies: Record<Visitor, string | undefined> = {
    guest: undefined,
    account: await cookieOf(page.request),
    operator: await cookieOf(request),
  }
  // An invite link that is not (or no longer) valid renders the same page module as a valid one.
  const fill = (path: string) => path.replace(':team', teamId).replace(':user', userId).replace(':token', 'no-longer-valid').replace(':job', jobId)
  const expectedStatus = (path: string, status?: number) => status ?? (path.includes(':token') ? 404 : 200)

  const rows: Array<PageWeight & { as: Visitor }> = []
  for (const entry of PAGES) {
    const row = await measurePage(baseURL!, fill(entry.path), cookies[entry.as])
    expect(row.status, `${entry.path} as ${entry.as}`).toBe(expectedStatus(entry.path, entry.status))
    expect(row.jsBytes, `${entry.path} as ${entry.as} loads JavaScript`).toBeGreaterThan(0)
    rows.push({ ...row, as: entry.as })
  }
  await info.attach('page-weight.json', { body: JSON.stringify(rows, null, 2), contentType: 'application/json' })
  const over = rows.filter(overBudget).map((r) => `${r.path} as ${r.as}: ${(r.jsBytes / 1024).toFixed(1)} KB`)
  expect(over, `pages over ${JS_BUDGET_BYTES / 1024} KB of compressed JavaScript`).toEqual([])
})
