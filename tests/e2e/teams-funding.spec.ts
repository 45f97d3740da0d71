// Teams that work on a phone and pay their own way (issue 21 item 3), with JavaScript (project js)
// and without (project no-js), at 360 and 1280 px: a member moves their own credits into the team
// from the team page; an invitee accepts with "Use the team's credits now" and the header's pill
// names the team at once, on a phone too, where it opens "Working as"; a member past their monthly
// cap is told before any upload and goes on with "Use my own credits", keeping the chosen file when
// the browser can (JavaScript); on the batch screen too, where without JavaScript the server refuses
// the batch before storing any of its files, with the same panel; with JavaScript a zip is counted
// before its upload, and one the page cannot read gets that panel from the server's refusal.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page, TestInfo } from '@playwright/test'
import { TRANSFER_AMOUNT_MESSAGE, transferTooLarge } from '../../app/features/teams/transfer'
import { headroomOf, overCapText } from '../../app/features/teams/headroom'
import { awaitHydrationOnNavigation, expect, test, UNTIL_TEST_TIMEOUT } from './support/test'
import { zipOf } from '../support/zip'
import { mailedInviteLink } from './support/teams'
import { fixture, isNoJs, screenshots, signInNewUser } from './support/tools'
import { expectAccessible } from './support/workspace'

const PHONE = { width: 360, height: 740 }

/** The photos in one zip, deflated, as archivers write them. */
const zipOfPhotos = (files: string[], end: { forceZip64Format?: boolean } = {}) =>
  zipOf(files.map((file) => ({ name: path.basename(file), bytes: readFileSync(file) })), end)

const DESKTOP = { width: 1280, height: 800 }

/** A team made through the API with the page's own session (its owner is the page's user). */
async function apiTeam(page: Page, name: string): Promise<string> {
  const made = await page.request.post('/api/teams/', { data: { name } })
  expect(made.status(), await made.text()).toBe(201)
  return (await made.json()).id as string
}

test('a member moves their own credits into the team from the team page', async ({ page }, info) => {
  test.setTimeout(300_000)
  await signInNewUser(page) // 50 credits: the welcome bonus
  const name = `Fund ${info.project.name} ${Date.now()}`
  const teamId = await apiTeam(page, name)

  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size)
    await page.goto(`/teams/${teamId}`)
    const panel = page.getByRole('region', { name: 'Add your credits' })
    await expect(panel).toBeVisible()
    const amount = panel.getByLabel('Credits to move')
    if (size === PHONE) {
      await expect(panel).toContainText('Your balance: 50 credits.')
      await expect(panel).toContainText('You can move up to 40 credits.')
      // A fraction, then more than may move: the form says why, nothing moves.
      await amount.fill('2.5')
      await panel.getByRole('button', { name: 'Move credits' }).click()
      await expect(panel.getByText(TRANSFER_AMOUNT_MESSAGE)).toBeVisible()
      await amount.fill('41')
      await panel.getByRole('button', { name: 'Move credits' }).click()
      await expect(panel.getByText(transferTooLarge(41, 50, 10))).toBeVisible()
      await expect(page.getByTestId('team-balance')).toContainText('0 credits')
      await amount.fill('30')
    } else {
      await expect(panel).toContainText('Your balance: 20 credits.')
      await amount.fill('10')
    }
    await panel.getByRole('button', { name: 'Move credits' }).click()
    await expect(page.getByTestId('team-notice')).toContainText('Your credits were moved to the team')
    await expect(page.getByTestId('team-balance')).toContainText(size === PHONE ? '30 credits' : '40 credits')
  }
  await expect(page.getByRole('region', { name: 'Add your credits' })).toContainText('You have nothing to move now.')
  await expect(page.getByTestId('team-activity-list')).toContainText('Moved in from a member’s own credits')
  await expect(page.getByTestId('team-activity-list')).toContainText('+30 credits')
  await expectAccessible(page, 'team page with the transfer form')
  await screenshots(page, info, 'team-transfer')
})

async function workAsFromPill(page: Page, info: TestInfo, label: string) {
  await page.getByTestId('working-as-menu').locator('summary').click()
  const form = page.getByTestId('header-working-as-form')
  await form.getByLabel('Working as').selectOption({ label })
  if (isNoJs(info)) await form.getByRole('button', { name: 'Switch' }).click()
  await expect(page.getByTestId('working-as-name')).toHaveText(label)
}

test('accept with “Use the team’s credits now”; the pill names the team on a phone; past the cap, “Use my own credits”', async ({ page, browser }, info) => {
  test.setTimeout(300_000)
  // The owner funds the team from their own welcome bonus (no operator needed).
  await signInNewUser(page)
  const teamName = `Phone Crew ${info.project.name}`
  const teamId = await apiTeam(page, teamName)
  const moved = await page.request.post(`/api/teams/${teamId}/transfers/`, { data: { amount: 30 } })
  expect(moved.status(), await moved.text()).toBe(201)

  const context = await browser.newContext({ viewport: PHONE })
  const member = await context.newPage()
  if (!isNoJs(info)) awaitHydrationOnNavigation(member)
  const memberEmail = await signInNewUser(member)
  const invited = await page.request.post(`/api/teams/${teamId}/invites/`, { data: { email: memberEmail, role: 'member' } })
  expect(invited.status(), await invited.text()).toBe(201)
  const link = new URL(await mailedInviteLink(memberEmail))

  // On a phone: accept and work as the team in one step.
  await member.goto(link.pathname)
  await expect(member.getByRole('heading', { level: 1, name: `Join ${teamName}` })).toBeVisible()
  await member.getByRole('button', { name: 'Use the team’s credits now' }).click()
  await expect(member).toHaveURL(new RegExp(`/teams/${teamId}$`))
  await expect(member.getByTestId('team-notice')).toContainText('You are working as the team')
  // The header's pill names the team over its credits, in view at 360 px without opening the menu.
  const pill = member.getByTestId('credits-button')
  await expect(pill).toBeInViewport()
  await expect(member.getByTestId('working-as-name')).toHaveText(teamName)
  await expect(pill).toContainText('30 credits')
  await expectAccessible(member, 'team page after accepting (phone)')
  await screenshots(member, info, 'team-joined-working')

  // The owner caps the member at 0: every run would pass it.
  const view = await (await page.request.get(`/api/teams/${teamId}/`)).json()
  const memberId = view.members.find((m: { email: string }) => m.email === memberEmail).user_id
  const capped = await page.request.patch(`/api/teams/${teamId}/members/${memberId}/`, { data: { cap: 0 } })
  expect(capped.status(), await capped.text()).toBe(200)

  // The batch screen says so before a file is chosen: with nothing left of the cap every batch passes it,
  // so its button is off, without JavaScript too.
  await member.goto('/tools/batch')
  await expect(member.getByRole('region', { name: 'Past your monthly cap' })).toContainText(overCapText(teamName, headroomOf(0, 0), 1, 'file'))
  await expect(member.getByRole('button', { name: 'Run the batch' })).toBeDisabled()

  // The tool says so before any upload, and the way on is the member's own credits.
  await member.goto('/tools/background-remover')
  await expect(member.getByTestId('cap-headroom')).toHaveText(`Your monthly cap on ${teamName}: 0 of 0 credits left.`)
  const overCap = member.getByTestId('state-over-cap')
  await expect(overCap).toContainText('Past your monthly cap')
  await member.getByTestId('file-input').setInputFiles(fixture('photos/product-router-alpha-groundtruth.png'))
  await expect(member.getByTestId('process-button')).toBeDisabled()
  await expect(overCap).toBeVisible()
  await expectAccessible(member, 'tool page past the monthly cap (phone)')
  await screenshots(member, info, 'tool-over-cap')
  await member.setViewportSize(PHONE)
  await overCap.getByRole('button', { name: 'Use my own credits' }).click()
  await expect(member.getByTestId('working-as-name')).toHaveText('Your balance')
  await expect(member.getByTestId('credits-button')).toContainText('50 credits')
  await expect(member.getByTestId('state-over-cap')).toHaveCount(0)
  await expect(member.getByTestId('cap-headroom')).toHaveCount(0)
  if (isNoJs(info)) {
    // The browser cannot keep a chosen file across a post: the page is back, ready for one.
    await expect(member.getByTestId('drop-zone')).toBeVisible()
  } else {
    // The chosen file is still there, and the run can go on the own credits.
    await expect(member.getByTestId('file-summary')).toContainText('product-router-alpha-groundtruth.png')
    await expect(member.getByTestId('process-button')).toBeEnabled()
  }

  // "Working as" from the pill at 360 px: back to the team.
  await workAsFromPill(member, info, teamName)
  await expect(member.getByTestId('credits-button')).toContainText('30 credits')
  await member.setViewportSize(DESKTOP)
  await workAsFromPill(member, info, 'Your balance')
  await context.close()
})

/** A member of a new team that is funded from its owner's own credits, working as it, with a monthly cap. */
async function cappedMember(page: Page, member: Page, teamName: string, cap: number): Promise<void> {
  await signInNewUser(page)
  const teamId = await apiTeam(page, teamName)
  const moved = await page.request.post(`/api/teams/${teamId}/transfers/`, { data: { amount: 20 } })
  expect(moved.status(), await moved.text()).toBe(201)
  const memberEmail = await signInNewUser(member)
  const invited = await page.request.post(`/api/teams/${teamId}/invites/`, { data: { email: memberEmail, role: 'member' } })
  expect(invited.status(), await invited.text()).toBe(201)
  await member.goto(new URL(await mailedInviteLink(memberEmail)).pathname)
  await member.getByRole('button', { name: 'Use the team’s credits now' }).click()
  await expect(member.getByTestId('working-as-name')).toHaveText(teamName)
  const view = await (await page.request.get(`/api/teams/${teamId}/`)).json()
  const memberId = view.members.find((m: { email: string }) => m.email === memberEmail).user_id
  const capped = await page.request.patch(`/api/teams/${teamId}/members/${memberId}/`, { data: { cap } })
  expect(capped.status(), await capped.text()).toBe(200)
}

test('a batch past the monthly cap is refused before upload (JavaScript) or before storing (none); “Use my own credits”, then it runs', async ({ page, browser }, info) => {
  test.setTimeout(300_000)
  const context = await browser.newContext({ viewport: PHONE })
  const member = await context.newPage()
  if (!isNoJs(info)) awaitHydrationOnNavigation(member)
  const teamName = `Batch Crew ${info.project.name} ${Date.now()}`
  await cappedMember(page, member, teamName, 2)

  const sent: string[] = []
  member.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.startsWith('/api/batches')) sent.push(request.url())
  })
  await member.goto('/tools/batch?tool=background-remover')
  await expect(member.getByTestId('cap-headroom')).toHaveText(`Your monthly cap on ${teamName}: 2 of 2 credits left.`)
  const photos = ['photos/noface-rocket.jpg', 'photos/product-gameboy-white-bg.jpg', 'photos/product-router-alpha-groundtruth.png'].map(fixture)
  const run = member.getByRole('button', { name: 'Run the batch' })
  const overCap = member.getByRole('region', { name: 'Past your monthly cap' })
  if (!isNoJs(info)) {
    const chosen = member.getByRole('list', { name: 'Chosen files' })
    // A zip is counted here, from its directory: priced and refused before its upload, as listed files are.
    const zip = await zipOfPhotos(photos)
    await member.getByLabel('Choose images').setInputFiles({ name: 'photos.zip', mimeType: 'application/zip', buffer: zip })
    await expect(chosen).toContainText('Zip of 3 files to run')
    await expect(member.getByTestId('batch-totals')).toContainText('3 of 100 files')
    await expect(overCap).toContainText(overCapText(teamName, headroomOf(2, 0), 3, 'batch'))
    await expect(member.getByTestId('tool-cost')).toHaveText('1 credit per file · 3 credits in all')
    await expect(run).toBeDisabled()
    await screenshots(member, info, 'batch-zip-over-cap')
    await member.setViewportSize(PHONE)
    await member.getByRole('button', { name: 'Remove photos.zip' }).click()
    await expect(overCap).toHaveCount(0)
    // A zip the page cannot read (ZIP64) is counted by the server alone: its refusal says what the batch
    // costs, and the page says it in the same panel, with the same way on, instead of the bare message.
    const zip64 = await zipOfPhotos(photos, { forceZip64Format: true })
    await member.getByLabel('Choose images').setInputFiles({ name: 'photos64.zip', mimeType: 'application/zip', buffer: zip64 })
    await expect(chosen).toContainText('Zip of images')
    await expect(member.getByTestId('batch-totals')).toContainText('Up to 100 files: the zip is counted when sent')
    await expect(overCap).toHaveCount(0)
    await run.click()
    await expect(overCap).toContainText(overCapText(teamName, headroomOf(2, 0), 3, 'batch'))
    await expect(member.getByTestId('batch-error')).toHaveCount(0)
    await expect(run).toBeDisabled()
    await member.getByRole('button', { name: 'Remove photos64.zip' }).click()
    await expect(overCap).toHaveCount(0)
    expect(sent).toHaveLength(1)
    sent.length = 0
  }
  await member.getByLabel('Choose images').setInputFiles(photos)
  // Without JavaScript the page cannot count the files: the server refuses the post before storing any.
  if (isNoJs(info)) await run.click()
  await expect(overCap).toContainText(overCapText(teamName, headroomOf(2, 0), 3, 'batch'))
  await expect(member).not.toHaveURL(/[?&]batch=/)
  if (!isNoJs(info)) {
    await expect(member.getByTestId('tool-cost')).toHaveText('1 credit per file · 3 credits in all')
    await expect(run).toBeDisabled()
    expect(sent).toEqual([])
  }
  await expect(member.getByTestId('batch-error')).toHaveCount(0)
  await expectAccessible(member, 'batch past the monthly cap (phone)')
  await screenshots(member, info, 'batch-over-cap')
  await member.setViewportSize(PHONE)

  await overCap.getByRole('button', { name: 'Use my own credits' }).click()
  await expect(member.getByTestId('working-as-name')).toHaveText('Your balance')
  await expect(member.getByTestId('credits-button')).toContainText('50 credits')
  await expect(member).toHaveURL(/\/tools\/batch\?tool=background-remover$/)
  await expect(member.getByRole('region', { name: 'Past your monthly cap' })).toHaveCount(0)
  await expect(member.getByTestId('cap-headroom')).toHaveCount(0)
  if (isNoJs(info)) {
    // The browser cannot keep chosen files across a post: they are chosen again.
    await member.getByLabel('Choose images').setInputFiles(photos)
  } else {
    // The listed files are still there.
    await expect(member.getByRole('list', { name: 'Chosen files' }).getByRole('listitem')).toHaveCount(3)
  }
  await run.click()
  await expect(member).toHaveURL(/[?&]batch=[0-9a-f-]{36}/, { timeout: 30_000 })
  await expect(member.getByRole('heading', { name: /Batch complete: 3 done, 0 failed, 3 in all/ })).toBeVisible(UNTIL_TEST_TIMEOUT)
  await member.reload()
  await expect(member.getByTestId('credits-button')).toContainText('47 credits')
  await context.close()
})
