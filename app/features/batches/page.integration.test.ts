// The batch screen's loader and action (the page without JavaScript): the tool chosen by the
// address, a form with one tool's own fields posted to the same acceptBatch as the API, the
// redirect to ?batch=<id>, the batch drawn for its owner only, and the refusals drawn on the form;
// a team member's batch past their monthly cap refused before anything is stored, with its way on.
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { loadViewer } from '~/features/account/viewer.server'
import { createVerifiedUser, linkMailedTo } from '~/features/auth/testing.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { grant } from '~/features/credits/ledger.server'
import { teamAccount } from '~/features/teams/membership.server'
import { batchCapMessage } from '~/features/teams/messages'
import { acceptInvite, changeMember, createTeam, inviteMember, setWorkingTeam } from '~/features/teams/teams.server'
import { action, loader } from '~/routes/tools.batch'
import { action as workingAsAction } from '~/routes/teams.working-as'
import { emptyToolQueue, fileOf, fixture, newUser, newVisitor, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { zipOf } from '../../../tests/support/zip'
import type { BatchPageData } from './page.server'
import { skippedSummary } from './ui/batch-status'

afterAll(async () => {
  // Batches accepted here leave files queued: the next file in this worker's schema should not run them.
  await emptyToolQueue()
  await stopBoss({ timeoutMs: 5_000 })
})

async function page(caller: TestCaller | null, search = ''): Promise<BatchPageData> {
  return loader(routeArgs(new Request(`${BASE}/tools/batch${search}`, { headers: caller?.headers ?? {} })))
}

async function post(caller: TestCaller, fields: Array<[string, string | Blob]>, search = '') {
  const form = new FormData()
  for (const [name, value] of fields) form.append(name, value)
  return readResult(await action(routeArgs(new Request(`${BASE}/tools/batch${search}`, { method: 'POST', body: form, headers: caller.headers }))))
}

describe('the batch page loader', () => {
  it('takes the tool from the address (else the first), with its cost per file and the batch limits', async () => {
    const first = await page(null)
    expect(first).toMatchObject({ tool: 'background-remover', cost: 1, limits: { maxFiles: 100, maxMegabytes: 200 }, missingModels: [], batch: null, notFound: false })
    // Standard detail (no GFPGAN in the test studio) costs less than a real restoration (issue 35).
    expect(await page(null, '?tool=face-restorer')).toMatchObject({ tool: 'face-restorer', cost: 1 })
    expect(await page(null, '?tool=image-enhancer')).toMatchObject({ tool: 'image-enhancer', cost: 2 })
    expect((await page(null, '?tool=nope')).tool).toBe('background-remover')
    expect(await page(null, '?batch=not-a-batch')).toMatchObject({ batch: null, notFound: true })
  })
})

describe('the batch page action (no JavaScript)', () => {
  it("runs SVGs with the converter's own fields, redirects to the batch, and shows it to its owner only", async () => {
    const owner = await newUser()
    const posted = await post(
      owner,
      [
        ['tool', 'svg-converter'],
        ['format', 'webp'],
        ['scale', '2'],
        ['background', '#ffffff'],
        ['svg', fileOf(fixture('svg/openclipart-stopwatch.svg'), 'stopwatch.svg', 'image/svg+xml')],
        ['svg', fileOf(fixture('svg/tango-user-home.svg'), 'home.svg', 'image/svg+xml')],
      ],
      '?tool=svg-converter',
    )
    expect(posted.status).toBe(303)
    const location = new URL(posted.headers.get('location')!, BASE)
    expect(location.pathname).toBe('/tools/batch')
    const id = location.searchParams.get('batch')!
    expect(id).toMatch(/^[0-9a-f-]{36}$/)

    let shown = await page(owner, location.search)
    expect(shown.tool).toBe('svg-converter')
    expect(shown.batch).toMatchObject({ id, tool: 'svg-converter', total: 2 })
    await vi.waitFor(
      async () => {
        shown = await page(owner, location.search)
        expect(shown.batch?.status).toBe('completed')
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(shown.batch).toMatchObject({ done: 2, failed: 0 })
    expect(shown.batch!.items.map((i) => [i.name, i.status, i.progress])).toEqual([
      ['stopwatch.svg', 'succeeded', 100],
      ['home.svg', 'succeeded', 100],
    ])
    // The options posted are the ones the jobs ran with.
    const jobs = await getDb().selectFrom('tool_jobs').select(['options', 'filename']).where('batch_id', '=', id).orderBy('batch_position').execute()
    expect(jobs.map((j) => (typeof j.options === 'string' ? JSON.parse(j.options) : j.options))).toEqual([
      { format: 'webp', scale: 2, background: '#ffffff' },
      { format: 'webp', scale: 2, background: '#ffffff' },
    ])
    expect(jobs.map((j) => j.filename)).toEqual(['stopwatch.webp', 'home.webp'])

    const stranger = await newUser()
    expect(await page(stranger, location.search)).toMatchObject({ batch: null, notFound: true, tool: 'background-remover' })
    expect(await page(null, location.search)).toMatchObject({ batch: null, notFound: true })
  })

  it('draws the refusals on the form: the balance (how many files it covers), a visitor converting SVGs, a bad option', async () => {
    const visitor = await newVisitor() // 5 credits
    const portrait = () => fileOf(fixture('photos/degraded-face-crop-64px.jpg'), 'face.jpg', 'image/jpeg')
    const unpaid = await post(visitor, [['tool', 'image-enhancer'], ['image', portrait()], ['image', portrait()], ['image', portrait()]])
    expect(unpaid).toMatchObject({
      status: 402,
      body: { error: 'Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.' },
    })
    const svg = await post(visitor, [['tool', 'svg-converter'], ['format', 'png'], ['scale', '1'], ['svg', fileOf(fixture('svg/tango-user-home.svg'), 'home.svg')]])
    expect(svg.status).toBe(401)
    expect(svg.body.error).toMatch(/account/i)
    const blur = await post(visitor, [['tool', 'face-blurrer'], ['blur', '13'], ['image', portrait()]])
    expect(blur).toMatchObject({ status: 400, body: { error: 'blur must be a number from 12 to 60 in steps of 2.' } })
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', visitor.accountId).execute()).toEqual([])
  })

  it('refuses 101 files on the form, naming the limit, and creates nothing', async () => {
    const owner = await newUser()
    const one = fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
    const fields: Array<[string, string | Blob]> = [['tool', 'background-remover']]
    for (let i = 0; i < 101; i++) fields.push(['image', one])
    expect(await post(owner, fields)).toMatchObject({ status: 400, body: { error: 'A batch takes at most 100 files.' } })
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', owner.accountId).execute()).toEqual([])
  })

  it('refuses a team member’s batch past their monthly cap before storing a file, priced for the over-cap panel; on their own credits it runs', async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Capped ${randomUUID().slice(0, 6)}`)
    const teamAccountId = (await teamAccount(team.id))!.accountId
    await grant({ accountId: teamAccountId, amount: 20, kind: 'adjustment', description: 'Budget' })
    const made = await createVerifiedUser()
    await inviteMember(owner.user.id, team.id, { email: made.user.email, role: 'member' })
    await acceptInvite(made.user.id, (await linkMailedTo(made.user.email)).pathname.split('/').pop()!)
    await setWorkingTeam(made.sessionId, made.user.id, team.id)
    await changeMember(owner.user.id, team.id, made.user.id, { cap: 2 })
    const member: TestCaller = { headers: { cookie: (await sessionCookieHeader(made.token)).split(';')[0]! }, accountId: teamAccountId }
    const viewer = async () => (await loadViewer(new Request(`${BASE}/tools/batch`, { headers: member.headers }))).viewer
    // What the screen shows before anything is chosen: 2 of the cap left, a file costs 1.
    expect((await viewer()).workingTeam).toEqual({ id: team.id, name: team.name, cap: { limit: 2, used: 0, left: 2 } })

    const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')
    const three: Array<[string, string | Blob]> = [['tool', 'background-remover'], ['image', photo()], ['image', photo()], ['image', photo()]]
    const refused = await post(member, three, '?tool=background-remover')
    // The API's words with the way on, and the batch's cost: the page draws the over-cap panel from it.
    expect(refused).toMatchObject({ status: 402, body: { error: batchCapMessage(2, team.name, 0, 3, 1), overCapCost: 3 } })
    expect(refused.body.error).toContain('To use your own credits instead, switch to your own balance.')
    // Nothing stored, nothing charged.
    expect(await getDb().selectFrom('batches').select('id').where('account_id', '=', teamAccountId).execute()).toEqual([])
    expect(await getDb().selectFrom('tool_jobs').select('id').where('user_id', '=', made.user.id).execute()).toEqual([])
    expect((await teamAccount(team.id))!.balance).toBe(20)
    expect((await viewer()).workingTeam?.cap).toEqual({ limit: 2, used: 0, left: 2 })

    // The way on, "Use my own credits": the panel's form, back to the batch screen on the own balance.
    const switched = await workingAsAction(
      routeArgs(formRequest('/teams/working-as', { team: '', from: '/tools/batch?tool=background-remover' }, { headers: member.headers })),
    )
    expect(switched.status).toBe(303)
    expect(switched.headers.get('location')).toBe('/tools/batch?tool=background-remover')
    expect((await viewer()).workingTeam).toBeNull()
    expect((await viewer()).credits).toMatchObject({ source: 'user' })
    const accepted = await post(member, three, '?tool=background-remover')
    expect(accepted.status).toBe(303)
    const id = new URL(accepted.headers.get('location')!, BASE).searchParams.get('batch')!
    const { account_id } = await getDb().selectFrom('batches').select('account_id').where('id', '=', id).executeTakeFirstOrThrow()
    const own = await getDb().selectFrom('credit_accounts').select(['user_id', 'team_id']).where('id', '=', account_id).executeTakeFirstOrThrow()
    expect(own).toEqual({ user_id: made.user.id, team_id: null })
    expect((await page(member, `?batch=${id}`)).batch).toMatchObject({ id, total: 3 })
    expect((await teamAccount(team.id))!.balance).toBe(20)
  })

  it("shows the zip's skipped entries with the batch", async () => {
    const owner = await newUser()
    const bytes = await zipOf([
      { name: 'a.jpg', bytes: Buffer.from('not an image') },
      { name: '.DS_Store', bytes: Buffer.from('x') },
    ])
    const posted = await post(owner, [['tool', 'background-remover'], ['image', fileOf(bytes, 'photos.zip', 'application/zip')]])
    expect(posted.status).toBe(303)
    const shown = await page(owner, new URL(posted.headers.get('location')!, BASE).search)
    expect(shown.batch).toMatchObject({ total: 1, skipped: [{ name: '.DS_Store', reason: 'hidden' }] })
    expect(skippedSummary(shown.batch!.skipped)).toBe(
      'Skipped from the zip: 1 hidden file (such as __MACOSX/ or .DS_Store). They are not files of the batch and were not run.',
    )
  })
})
