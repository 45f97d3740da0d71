// Teams, with JavaScript (project js) and without (project no-js): an owner creates a team, an
// operator grants it credits (`npm run credits -- grant-team`, a real second process handed to the
// running studio), the owner invites a second address, the invitee opens the mailed link, signs up,
// opens the verification mail's link, lands back on the invite signed in, accepts, switches to the
// team in the header and runs a tool: the team balance drops and the owner sees the run in the team's
// activity. A form's notice shows once: never in the address, gone on reload. Also: a used or revoked invite answers 410 with a clear
// message, another address is told which one to use, a member gets no invite controls, and an
// owner sets caps and roles, makes and revokes a team key, removes a member and cannot leave alone.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { type Browser, type Page, type TestInfo } from '@playwright/test'
import { capMessage, INVITE_NEW_ACCOUNT_NOTE, INVITE_REVOKED, INVITE_USED, LAST_OWNER } from '../../app/features/teams/messages'
import { waitForMail } from './support/mail'
import { awaitHydrationOnNavigation, expect, test } from './support/test'
import { fixture, isNoJs, picture, screenshots, signInNewUser, waitForVerificationLink } from './support/tools'
import { E2E_DATA_DIR, E2E_MAIL_DIR, mailedInviteLink } from './support/teams'
import { expectAccessible } from './support/workspace'

const DATA_DIR = E2E_DATA_DIR
const MAIL_DIR = E2E_MAIL_DIR
const PASSWORD = 'a-long-enough-password'

const uniqueEmail = (label: string, info: TestInfo) =>
  `${label}-${info.project.name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`

/** The operator's command, as a second process; the running studio takes it over its operator channel. */
async function grantTeam(teamId: string, amount: number, reason: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/credits.ts', 'grant-team', teamId, String(amount), reason], {
    env: { ...process.env, DATA_DIR, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const [code] = await once(child, 'exit')
  expect(code, output).toBe(0)
}

const pathOf = (link: string) => new URL(link).pathname

async function createTeam(page: Page, name: string): Promise<string> {
  await page.goto('/teams')
  await expect(page.getByRole('heading', { level: 1, name: 'Your teams' })).toBeVisible()
  await page.getByLabel('Team name').fill(name)
  await page.getByRole('button', { name: 'Create team' }).click()
  await expect(page).toHaveURL(/\/teams\/[0-9a-f-]{36}$/)
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
  await expect(page.getByTestId('team-notice')).toContainText('Your team is ready.')
  // Shown once: a reload (or the same address shared) says nothing.
  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
  await expect(page.getByTestId('team-notice')).toHaveCount(0)
  return new URL(page.url()).pathname.split('/')[2]
}

async function invite(page: Page, email: string, role: 'Member' | 'Admin' = 'Member') {
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Role', { exact: true }).selectOption({ label: role })
  await page.getByRole('button', { name: 'Send invite' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The invite is on its way.')
  await expect(page.getByTestId('team-invites')).toContainText(email)
  return mailedInviteLink(email)
}

/** A second person in their own browser context (the project's options apply: JavaScript or not). */
async function newPerson(browser: Browser, info: TestInfo) {
  const context = await browser.newContext()
  const page = await context.newPage()
  if (!isNoJs(info)) awaitHydrationOnNavigation(page)
  return { context, page }
}

/** The header's switch (desktop): a disclosure holding the form. */
async function workAs(page: Page, info: TestInfo, label: string, expectedCredits: string) {
  await page.getByTestId('working-as-menu').locator('summary').click()
  const form = page.getByTestId('header-working-as-form')
  await form.getByLabel('Working as').selectOption({ label })
  if (isNoJs(info)) await form.getByRole('button', { name: 'Switch' }).click()
  else await expect(form.getByRole('button', { name: 'Switch' })).toHaveCount(0)
  // The pill names the balance spent (the team, or the own balance) over its credits.
  await expect(page.getByTestId('credits-button')).toContainText(expectedCredits)
  await expect(page.getByTestId('working-as-name')).toHaveText(label)
  await expect(form.getByLabel('Working as')).toHaveValue(label === 'Your balance' ? '' : /.+/)
}

test('invite, accept, work as the team: the run is charged to the team and shown to the owner', async ({ page, browser }, info) => {
  test.setTimeout(120_000)
  await signInNewUser(page)
  const teamName = `Studio North ${info.project.name}`
  const teamId = await createTeam(page, teamName)
  await expect(page.getByTestId('team-balance')).toContainText('0 credits')
  await expect(page.getByTestId('team-seats')).toContainText('1 of')

  await grantTeam(teamId, 20, 'E2E team budget')
  await page.reload()
  await expect(page.getByTestId('team-balance')).toContainText('20 credits')

  // A blank invite is stopped with a message, by the browser (JS) or the server (no JS).
  await page.getByLabel('Email address').fill('not-an-address')
  await page.getByRole('button', { name: 'Send invite' }).click()
  await expect(page.getByText('Enter a valid email address.')).toBeVisible()

  const inviteeEmail = uniqueEmail('invitee', info)
  const link = await invite(page, inviteeEmail)
  await expect(page.getByTestId('team-seats')).toContainText('2 of')

  // Signed in as another address: the page names the one to use.
  await page.goto(pathOf(link))
  await expect(page.getByRole('heading', { level: 1, name: `Join ${teamName}` })).toBeVisible()
  await expect(page.getByTestId('invite-wrong-address')).toContainText(`This invite is for ${inviteeEmail}`)
  await expect(page.getByRole('button', { name: 'Accept the invite' })).toHaveCount(0)

  // The invitee: the link leads through sign-up first.
  const invitee = await newPerson(browser, info)
  await invitee.page.goto(pathOf(link))
  await expect(invitee.page.getByTestId('invite-sign-in')).toContainText(`Sign in or create an account with ${inviteeEmail}`)
  await expect(invitee.page.getByRole('main')).toContainText('invited as Member')
  await expect(invitee.page.getByTestId('invite-sign-in')).toContainText(INVITE_NEW_ACCOUNT_NOTE)
  await expectAccessible(invitee.page, 'invite page (signed out)')
  await screenshots(invitee.page, info, 'team-invite-signed-out')
  await invitee.page.getByRole('link', { name: 'Create an account' }).click()
  await expect(invitee.page).toHaveURL(/\/login\?mode=register&from=%2Fteams%2Finvites%2F/)
  await invitee.page.getByLabel('Email', { exact: true }).fill(inviteeEmail)
  await invitee.page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await invitee.page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD)
  await invitee.page.getByRole('button', { name: 'Create account' }).click()
  await expect(invitee.page.getByTestId('check-email')).toContainText(inviteeEmail)
  // The verification mail's link leads back to the invite, signed in (with JavaScript the page posts
  // the token at once; without, one button does).
  const verification = await waitForVerificationLink(inviteeEmail, MAIL_DIR)
  expect(verification.searchParams.get('from')).toBe(pathOf(link))
  await invitee.page.goto(verification.pathname + verification.search)
  if (isNoJs(info)) await invitee.page.getByRole('button', { name: 'Confirm my email' }).click()
  await expect(invitee.page).toHaveURL(new RegExp(`${pathOf(link)}$`))
  await expect(invitee.page.getByRole('heading', { level: 1, name: `Join ${teamName}` })).toBeVisible()
  await expect(invitee.page.getByTestId('credits-button')).toHaveText('50 credits')
  await invitee.page.getByRole('button', { name: 'Accept the invite' }).click()
  await expect(invitee.page).toHaveURL(new RegExp(`/teams/${teamId}$`))
  await expect(invitee.page.getByTestId('team-notice')).toContainText('Welcome to the team.')
  await invitee.page.reload()
  await expect(invitee.page.getByRole('heading', { level: 2, name: 'Your share' })).toBeVisible()
  await expect(invitee.page.getByTestId('team-notice')).toHaveCount(0)
  // A member sees their own share, and no invite, role, cap or removal controls.
  await expect(invitee.page.getByRole('heading', { level: 2, name: 'Your share' })).toBeVisible()
  await expect(invitee.page.getByTestId('team-member')).toHaveCount(1)
  await expect(invitee.page.getByRole('heading', { name: 'Invite someone' })).toHaveCount(0)
  await expect(invitee.page.getByRole('button', { name: 'Send invite' })).toHaveCount(0)
  await expect(invitee.page.getByRole('button', { name: /Revoke/ })).toHaveCount(0)
  await expect(invitee.page.getByLabel(/Monthly cap/)).toHaveCount(0)
  // ...and the server refuses the form anyway.
  const refused = await invitee.page.request.post(`/teams/${teamId}`, { form: { intent: 'invite', email: uniqueEmail('nope', info), role: 'member' } })
  expect(refused.status()).toBe(403)

  // The used link: 410 and a clear message.
  const reused = await invitee.page.goto(pathOf(link))
  expect(reused?.status()).toBe(410)
  await expect(invitee.page.getByTestId('invite-closed')).toHaveText(INVITE_USED)

  // Working as the team: the header's credit count is the team's.
  await invitee.page.goto('/tools/background-remover')
  await workAs(invitee.page, info, teamName, '20 credits')
  await invitee.page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await invitee.page.getByTestId('process-button').click()
  await expect(invitee.page.getByTestId('download-box')).toContainText('Cutout ready')
  await invitee.page.reload()
  await expect(invitee.page.getByTestId('credits-button')).toContainText('19 credits')
  await expect(invitee.page.getByTestId('working-as-menu').locator('summary')).toContainText(teamName)
  // On a phone the pill names the team in the header too, and the menu says it as well.
  await invitee.page.setViewportSize({ width: 360, height: 800 })
  await expect(invitee.page.getByTestId('working-as-name')).toBeInViewport()
  await expect(invitee.page.getByTestId('working-as-name')).toHaveText(teamName)
  await invitee.page.getByTestId('mobile-menu').locator('summary').click()
  await expect(invitee.page.getByTestId('mobile-working-as-form').getByLabel('Working as')).toHaveValue(teamId)
  await expect(invitee.page.getByTestId('mobile-credits-button')).toHaveText(`${teamName} · 19 credits`)
  await picture(invitee.page, `team-switch-menu-${info.project.name}-360`)
  await invitee.page.setViewportSize({ width: 1280, height: 720 })

  // The owner caps the member at the 1 credit already spent: the tool page says so before any upload
  // (the run cannot be sent), and the credits stay where they were.
  await page.goto(`/teams/${teamId}`)
  const capped = page.getByTestId('team-member').filter({ hasText: inviteeEmail })
  await capped.getByLabel(`Monthly cap for ${inviteeEmail}`).fill('1')
  await capped.getByRole('button', { name: 'Save cap' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The monthly cap was saved.')
  await invitee.page.goto('/tools/background-remover')
  await expect(invitee.page.getByTestId('cap-headroom')).toHaveText(`Your monthly cap on ${teamName}: 0 of 1 credit left.`)
  await invitee.page.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await expect(invitee.page.getByTestId('state-over-cap')).toContainText('This run costs 1 credit and 0 credits of your monthly cap')
  await expect(invitee.page.getByTestId('process-button')).toBeDisabled()
  // The server refuses it anyway, naming the cap and charging nothing.
  const refusedRun = await invitee.page.request.post('/api/remove-bg/', {
    multipart: { image: { name: 'router.png', mimeType: 'image/png', buffer: await readFile(fixture('photos/product-router-alpha-groundtruth.png')) } },
  })
  expect(refusedRun.status()).toBe(402)
  expect((await refusedRun.json()).error).toBe(capMessage(1, teamName, 1))
  await invitee.page.reload()
  await expect(invitee.page.getByTestId('credits-button')).toContainText('19 credits')

  // Back to the own balance (the welcome bonus is untouched).
  await workAs(invitee.page, info, 'Your balance', '50 credits')

  // The owner sees the balance drop and the run, who ran it and for how much.
  await page.goto(`/teams/${teamId}`)
  await expect(page.getByTestId('team-balance')).toContainText('19 credits')
  const activity = page.getByTestId('team-activity-list')
  await expect(activity).toContainText('Background remover')
  await expect(activity).toContainText(inviteeEmail)
  const row = page.getByTestId('team-member').filter({ hasText: inviteeEmail })
  await expect(row).toContainText('Spent this month: 1 credit')
  await expectAccessible(page, 'team page (owner)')
  await screenshots(page, info, 'team-owner')

  await invitee.page.goto(`/teams/${teamId}`)
  await expectAccessible(invitee.page, 'team page (member)')
  await screenshots(invitee.page, info, 'team-member')
  await invitee.context.close()
})

test('owner controls: a cap, a role, a revoked invite (410), removal and the last owner who cannot leave', async ({ page, browser }, info) => {
  test.setTimeout(120_000)
  await signInNewUser(page)
  const teamId = await createTeam(page, `Agency ${info.project.name}`)

  // A revoked invite's link stops working.
  const revokedEmail = uniqueEmail('revoked', info)
  const revokedLink = await invite(page, revokedEmail)
  await page.getByRole('button', { name: `Revoke the invite for ${revokedEmail}` }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The invite was revoked')
  await expect(page.getByText('No pending invites.')).toBeVisible()
  const revoked = await page.goto(pathOf(revokedLink))
  expect(revoked?.status()).toBe(410)
  await expect(page.getByTestId('invite-closed')).toHaveText(INVITE_REVOKED)
  await expectAccessible(page, 'invite page (revoked)')
  expect((await page.goto('/teams/invites/not-a-real-token'))?.status()).toBe(404)
  await page.goto('/teams')
  await expectAccessible(page, 'teams list')

  // A member joins (signed up through the API this time).
  await page.goto(`/teams/${teamId}`)
  const member = await newPerson(browser, info)
  const memberEmail = await signInNewUser(member.page)
  const link = await invite(page, memberEmail)
  await member.page.goto(pathOf(link))
  await member.page.getByRole('button', { name: 'Accept the invite' }).click()
  await expect(member.page.getByTestId('team-notice')).toContainText('Welcome to the team.')

  await page.reload()
  const row = page.getByTestId('team-member').filter({ hasText: memberEmail })
  await row.getByLabel(`Monthly cap for ${memberEmail}`).fill('5')
  await row.getByRole('button', { name: 'Save cap' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The monthly cap was saved.')
  await expect(row).toContainText('cap 5 credits')
  await row.getByLabel(`Role of ${memberEmail}`).selectOption({ label: 'Admin' })
  await row.getByRole('button', { name: 'Save role' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The role was changed.')
  await expect(row).toContainText('Admin')
  await row.getByLabel(`Monthly cap for ${memberEmail}`).fill('')
  await row.getByRole('button', { name: 'Save cap' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The monthly cap was cleared.')
  await expect(row).toContainText('no monthly cap')

  // A team key: shown once on the page that made it, then listed by its prefix only, revocable.
  await page.getByLabel('Key name').fill('Agency sync')
  await page.getByLabel('Environment').selectOption('test')
  await page.getByRole('button', { name: 'Create team key' }).click()
  const shown = page.getByLabel('API key “Agency sync” (test)')
  await expect(shown).toHaveValue(/^fs_test_/)
  const key = await shown.inputValue()
  expect(page.url()).not.toContain(key)
  await expect(page.getByTestId('team-keys')).toContainText(`${key.slice(0, 12)}…`)
  await page.goto(`/teams/${teamId}`)
  await expect(page.locator('body')).not.toContainText(key)
  await page.getByRole('button', { name: 'Revoke Agency sync' }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The API key was revoked.')
  await expect(page.getByText('No team keys yet.')).toBeVisible()

  // The only owner cannot leave: the domain's message, on the form.
  await page.getByText(/^Leave Agency/).click()
  await page.getByRole('button', { name: 'Yes, leave the team' }).click()
  await expect(page.getByRole('alert')).toHaveText(LAST_OWNER)
  await expect(page).toHaveURL(new RegExp(`/teams/${teamId}`))

  // Removal: the member loses the team at once.
  await row.getByText(`Remove ${memberEmail}`, { exact: true }).click()
  await row.getByRole('button', { name: `Yes, remove ${memberEmail}` }).click()
  await expect(page.getByTestId('team-notice')).toContainText('The member was removed.')
  await expect(page.getByTestId('team-member').filter({ hasText: memberEmail })).toHaveCount(0)
  const gone = await member.page.goto(`/teams/${teamId}`)
  expect(gone?.status()).toBe(404)
  await member.context.close()
})

test('signed out, /teams goes to sign in and comes back', async ({ page }) => {
  await page.goto('/teams')
  await expect(page).toHaveURL(/\/login\?from=%2Fteams$/)
})

test('a capped member sends three runs at once: one is delivered and charged, the others are the cap\'s 402, never a 500 @js-only', async ({ page }) => {
  // Short runs go inline and are charged at their outcome, where the cap is read again: the
  // production server once answered that refusal 500 (decision 189). Whichever path each run
  // takes, the answers are the same.
  await signInNewUser(page)
  const teamName = `Cap race ${Date.now()}`
  const created = await page.request.post('/api/teams/', { data: { name: teamName } })
  expect(created.status(), await created.text()).toBe(201)
  const teamId = ((await created.json()) as { id: string }).id
  const moved = await page.request.post(`/api/teams/${teamId}/transfers/`, { data: { amount: 10 } })
  expect(moved.status(), await moved.text()).toBe(201)
  const me = (await (await page.request.get('/api/auth/profile/')).json()) as { id: string }
  const capped = await page.request.patch(`/api/teams/${teamId}/members/${me.id}/`, { data: { cap: 1 } })
  expect(capped.status(), await capped.text()).toBe(200)

  const svg = await readFile(fixture('svg/tango-user-home.svg'))
  const run = () =>
    page.request.post('/api/svg2image/convert/', {
      headers: { 'X-Team': teamId },
      multipart: { svg: { name: 'home.svg', mimeType: 'image/svg+xml', buffer: svg }, format: 'png', scale: '1' },
    })
  const answers = await Promise.all([run(), run(), run()])
  const statuses = answers.map((answer) => answer.status()).sort()
  expect(statuses, (await Promise.all(answers.map((answer) => answer.text()))).join('\n')).toEqual([200, 402, 402])
  for (const refused of answers.filter((answer) => answer.status() === 402)) {
    expect(refused.headers()['x-credits-charged']).toBe('0')
    expect(((await refused.json()) as { error: string }).error).toBe(capMessage(1, teamName, 1))
  }
  const team = (await (await page.request.get(`/api/teams/${teamId}/`)).json()) as { balance: number }
  expect(team.balance).toBe(9)
})
