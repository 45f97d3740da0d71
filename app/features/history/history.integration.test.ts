// /history's loader, the thumbnails' route and a guest's runs carried into the account they verify:
// runs ended through the jobs' own outcome (recordDelivered, recordFailed), so what history reads is
// what a worker writes.
import { randomUUID } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { executeTx, getDb } from '~/db/db.server'
import { registerUser } from '~/features/auth/accounts.server'
import { verifyEmailCarryingGuestRuns } from '~/features/history/carry.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { toolCost } from '~/features/tools/costs.server'
import { charge, grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { teamAccount } from '~/features/teams/membership.server'
import { acceptInvite, createTeam, inviteMember } from '~/features/teams/teams.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { insertJob, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { recordDelivered, recordFailed } from '~/features/jobs/outcome.server'
import { NO_FACE_NOT_CHARGED } from '~/features/jobs/run-state'
import { runnerFor } from '~/features/tools/runners/index.server'
import { loader as historyLoader } from '~/routes/history'
import { loader as thumbnailLoader } from '~/routes/api.results.$id.thumbnail'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { fixture, newVisitor, randomIp, type TestCaller } from '../../../tests/support/tools'
import { answerOf, BASE, cookieFrom, formRequest, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { action as loginAction } from '~/routes/login'
import { action as verifyAction } from '~/routes/verify-email'
import { action as apiVerify } from '~/routes/api.auth.verify-email'
import type { HistoryPageData } from './history.server'
import { THUMBNAIL_PIXELS } from './thumbnails.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

const PHOTO = fixture('photos/noface-coffee.png')

/** A job as a submitting request writes it (charged unless `unpaid`), without a pg-boss job. */
async function queuedJob(accountId: string, options: { tool?: ToolSlug; name?: string; userId?: string | null; unpaid?: boolean; batchId?: string; position?: number } = {}): Promise<ToolJobInfo> {
  const tool = options.tool ?? 'background-remover'
  const id = randomUUID()
  return executeTx(getDb(), async (trx) => {
    let chargeId: number | null = null
    if (!options.unpaid) {
      const charged = await charge({ accountId, amount: toolCost(tool), toolSlug: TOOLS[tool].ledgerSlug, idempotencyKey: `job:${id}`, userId: options.userId ?? null }, trx)
      if (!charged.ok) throw new Error('no charge')
      chargeId = charged.transactionId
    }
    return insertJob(
      {
        id,
        accountId,
        tool,
        options: {},
        originalName: options.name ?? 'coffee.png',
        bytes: PHOTO,
        width: 600,
        height: 400,
        notes: [],
        idempotencyKey: null,
        fingerprint: id,
        chargeTransactionId: chargeId,
        userId: options.userId ?? null,
        batchId: options.batchId ?? null,
        batchPosition: options.position ?? null,
      },
      trx,
    )
  })
}

/** The job delivered `PHOTO` as its result (a face tool's with `faces` found). */
async function delivered(job: ToolJobInfo, faces?: number): Promise<ToolJobInfo> {
  const ended = await recordDelivered(job, runnerFor(job.tool as ToolSlug) as never, { bytes: PHOTO, contentType: 'image/png', modelMs: 1, facesFound: faces }, 5)
  if (!ended) throw new Error('not ended')
  return ended
}

async function historyOf(headers: Record<string, string>): Promise<HistoryPageData> {
  const answer = await readResult(await historyLoader(routeArgs(new Request(`${BASE}/history`, { headers }))))
  expect(answer.status).toBe(200)
  expect(answer.headers.get('cache-control')).toBe('private, no-store')
  return answer.body as HistoryPageData
}

async function thumbnail(id: string, headers: Record<string, string>): Promise<Response> {
  return (await thumbnailLoader(routeArgs(new Request(`${BASE}/api/results/${id}/thumbnail`, { headers }), { id }))) as Response
}

describe('the history page', () => {
  it("lists a visitor's runs newest first: done, no face (not charged), failed, running, with their charge and result", async () => {
    const guest = await newVisitor()
    const done = await delivered(await queuedJob(guest.accountId, { name: 'done.png' }))
    const noFace = await delivered(await queuedJob(guest.accountId, { tool: 'face-blurrer', name: 'noface.png' }), 0)
    const failedJob = await queuedJob(guest.accountId, { name: 'failed.png' })
    await recordFailed(failedJob, { status: 422, message: 'This file cannot be read.' }, 3)
    await queuedJob(guest.accountId, { name: 'waiting.png' })

    const page = await historyOf(guest.headers)
    expect(page.scope).toBe('visitor')
    expect(page.entries.map((e) => (e.kind === 'run' ? [e.fileName, e.state, e.statusText, e.credits] : e.kind))).toEqual([
      ['waiting.png', 'waiting', 'Waiting', toolCost('background-remover')],
      ['failed.png', 'failed', 'Failed: This file cannot be read.', 0],
      ['noface.png', 'no_face', NO_FACE_NOT_CHARGED, 0],
      ['done.png', 'done', 'Done', toolCost('background-remover')],
    ])
    const doneEntry = page.entries.find((e) => e.id === done.id)!
    expect(doneEntry).toMatchObject({ kind: 'run', tool: 'background-remover', toolName: TOOLS['background-remover'].name, inputBytes: PHOTO.byteLength, width: 600, height: 400 })
    expect(doneEntry.kind === 'run' && doneEntry.downloadUrl).toBe(`/api/results/${done.result_id}?download=1`)
    expect(doneEntry.kind === 'run' && doneEntry.thumbnailUrl).toBe(`/api/results/${done.result_id}/thumbnail`)
    expect(page.entries.find((e) => e.id === noFace.id)).toMatchObject({ downloadUrl: `/api/results/${noFace.result_id}?download=1` })
    expect(page.entries.find((e) => e.id === failedJob.id)).toMatchObject({ downloadUrl: null, thumbnailUrl: null })

    // Someone else's browser sees none of it; a browser with no visitor yet sees an empty page.
    const other = await newVisitor()
    expect((await historyOf(other.headers)).entries).toEqual([])
    expect(await historyOf({ 'x-facet-client-ip': randomIp() })).toMatchObject({ scope: null, entries: [] })
  })

  it('leaves out runs older than 24 hours and results no longer kept', async () => {
    const guest = await newVisitor()
    const old = await queuedJob(guest.accountId, { name: 'old.png' })
    await getDb().updateTable('tool_jobs').set({ created_at: new Date(Date.now() - 25 * 3600_000) } as never).where('id', '=', old.id).execute()
    const expired = await delivered(await queuedJob(guest.accountId, { name: 'expired.png' }))
    await getDb().updateTable('results').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', expired.result_id!).execute()
    const page = await historyOf(guest.headers)
    expect(page.entries.map((e) => e.id)).toEqual([expired.id])
    expect(page.entries[0]).toMatchObject({ state: 'done', downloadUrl: null, thumbnailUrl: null })
  })

  it("groups a batch's items under the batch, with its counts and its zip once complete", async () => {
    const guest = await newVisitor()
    const batchId = randomUUID()
    await getDb().insertInto('batches').values({ id: batchId, account_id: guest.accountId, api_key_id: null, tool: 'face-blurrer', total: 3 }).execute()
    const items = [
      await queuedJob(guest.accountId, { tool: 'face-blurrer', name: 'a.png', batchId, position: 0 }),
      await queuedJob(guest.accountId, { tool: 'face-blurrer', name: 'b.png', batchId, position: 1 }),
      await queuedJob(guest.accountId, { tool: 'face-blurrer', name: 'c.png', batchId, position: 2, unpaid: true }),
    ]
    await delivered(items[0]!, 2)
    await delivered(items[1]!, 0)
    const single = await delivered(await queuedJob(guest.accountId, { name: 'single.png' }))

    let page = await historyOf(guest.headers)
    expect(page.entries.map((e) => [e.kind, e.id])).toEqual([
      ['run', single.id],
      ['batch', batchId],
    ])
    const running = page.entries[1]!
    const blur = toolCost('face-blurrer')
    expect(running).toMatchObject({ kind: 'batch', status: 'running', total: 3, done: 2, noFace: 1, failed: 0, credits: blur, downloadUrl: null, url: `/tools/batch?batch=${batchId}` })
    expect(running.kind === 'batch' && running.items.map((i) => [i.fileName, i.state, i.credits])).toEqual([
      ['a.png', 'done', blur],
      ['b.png', 'no_face', 0],
      // Not charged yet: a batch item pays when its run starts.
      ['c.png', 'waiting', null],
    ])

    await recordFailed(items[2]!, { status: 402, message: 'Not enough credits left to run this file when its turn came.' }, null)
    page = await historyOf(guest.headers)
    expect(page.entries[1]).toMatchObject({ kind: 'batch', status: 'completed', failed: 1, downloadUrl: `/api/batches/${batchId}/download/` })
  })

  it("shows a member working as a team their own runs on the team's credits, not another member's nor their own balance's", async () => {
    const owner = await createVerifiedUser()
    const member = await createVerifiedUser({ email: uniqueEmail('member') })
    const team = await createTeam(owner.user.id, `History ${randomUUID().slice(0, 6)}`)
    await inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' })
    await acceptInvite(member.user.id, (await linkMailedTo(member.user.email)).pathname.split('/').pop()!)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 20, kind: 'adjustment', description: 'Budget' })
    const ownerHeaders = { authorization: `Token ${owner.token}`, 'x-facet-client-ip': randomIp() }

    const personal = (await historyOf(ownerHeaders)) // creates the owner's own account on first read
    expect(personal).toMatchObject({ scope: 'user', entries: [] })
    const own = await getDb().selectFrom('credit_accounts').select('id').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()
    await grant({ accountId: own.id, amount: 5, kind: 'adjustment', description: 'Budget' })
    const ownerPersonalRun = await delivered(await queuedJob(own.id, { name: 'personal.png', userId: owner.user.id }))
    const ownerTeamRun = await delivered(await queuedJob(account.accountId, { name: 'owner-team.png', userId: owner.user.id }))
    await delivered(await queuedJob(account.accountId, { name: 'member-team.png', userId: member.user.id }))

    expect((await historyOf(ownerHeaders)).entries.map((e) => e.id)).toEqual([ownerPersonalRun.id])
    await getDb().updateTable('sessions').set({ working_team_id: team.id }).where('id', '=', owner.sessionId).execute()
    const asTeam = await historyOf(ownerHeaders)
    expect(asTeam).toMatchObject({ scope: 'team', teamName: team.name })
    expect(asTeam.entries.map((e) => e.id)).toEqual([ownerTeamRun.id])
  })
})

describe('GET /api/results/<id>/thumbnail', () => {
  it('is a WebP at most 160 pixels on a side, made once, for the owner only, never cached', async () => {
    const guest = await newVisitor()
    const job = await delivered(await queuedJob(guest.accountId))
    const first = await thumbnail(job.result_id!, guest.headers)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('image/webp')
    expect(first.headers.get('cache-control')).toBe('private, no-store')
    const bytes = Buffer.from(await first.arrayBuffer())
    const meta = await sharp(bytes).metadata()
    expect(meta.format).toBe('webp')
    expect(Math.max(meta.width!, meta.height!)).toBe(THUMBNAIL_PIXELS)
    expect(bytes.byteLength).toBeLessThan(PHOTO.byteLength / 10)
    const kept = await getDb().selectFrom('result_thumbnails').select(['result_id', 'ciphertext']).where('result_id', '=', job.result_id!).execute()
    expect(kept).toHaveLength(1)
    // Sealed at rest: the stored bytes are not the WebP.
    expect(Buffer.compare(kept[0]!.ciphertext, bytes)).not.toBe(0)
    const again = Buffer.from(await (await thumbnail(job.result_id!, guest.headers)).arrayBuffer())
    expect(Buffer.compare(again, bytes)).toBe(0)

    const stranger = await newVisitor()
    expect((await thumbnail(job.result_id!, stranger.headers)).status).toBe(404)
    expect((await thumbnail(job.result_id!, { 'x-facet-client-ip': randomIp() })).status).toBe(404)
    expect((await thumbnail('not-a-uuid', guest.headers)).status).toBe(404)
    // Gone with its result.
    await getDb().updateTable('results').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', job.result_id!).execute()
    expect((await thumbnail(job.result_id!, guest.headers)).status).toBe(404)
  })
})

describe("a guest's runs carried into the account they verify", () => {
  /** The guest signs up from its own browser (its key recorded with the link, decision 162). */
  async function signUp(guest: TestCaller) {
    const email = uniqueEmail('carried')
    const browserKey = randomUUID() + randomUUID()
    await registerUser({ email, password: 'correct-horse-battery', first_name: 'Guest', last_name: null }, { browserKey })
    const token = new URL(await linkMailedTo(email)).searchParams.get('token')!
    const visitorId = (await getDb().selectFrom('credit_accounts').select('visitor_id').where('id', '=', guest.accountId).executeTakeFirstOrThrow()).visitor_id
    return { token, visitorId, browserKey }
  }

  /** The sign-up form of /login, posted from `guest`'s browser (its cookies). */
  async function signUpOnThePage(guest: TestCaller) {
    const email = uniqueEmail('sender')
    const fields = { intent: 'register', email, password: 'correct-horse-battery', confirm_password: 'correct-horse-battery', first_name: 'Sam', last_name: '' }
    const answer = await readResult(await loginAction(routeArgs(formRequest('/login', fields, { headers: guest.headers }))))
    expect(answer.status).toBe(200)
    // The browser keeps the sign-up's key beside its visitor cookie.
    const browser = { ...guest.headers, cookie: `${guest.headers.cookie}; ${cookieFrom(answer.headers)}` }
    return { email, browser, token: new URL(await linkMailedTo(email)).searchParams.get('token')! }
  }

  const verifyOnThePage = async (token: string, headers: Record<string, string>, extra: Record<string, string> = {}) =>
    readResult(await answerOf(verifyAction(routeArgs(formRequest(`/verify-email?token=${token}`, { token, ...extra }, { headers })))))

  const ownerOf = async (jobId: string) => (await getDb().selectFrom('tool_jobs').select('account_id').where('id', '=', jobId).executeTakeFirstOrThrow()).account_id
  const verifiedAt = async (email: string) => (await getDb().selectFrom('users').select('email_verified_at').where('email', '=', email).executeTakeFirstOrThrow()).email_verified_at

  it("a link opened in another browser names the account, waits for 'Continue as', and carries nothing of either browser", async () => {
    const sender = await newVisitor()
    const victim = await newVisitor()
    const sendersRun = await delivered(await queuedJob(sender.accountId, { name: 'sender.png' }))
    const victimsRun = await delivered(await queuedJob(victim.accountId, { name: 'victim.png' }))
    const { email, token } = await signUpOnThePage(sender)

    // Opened by the victim: nothing spent, no session, the account's address shown.
    const asked = await verifyOnThePage(token, victim.headers)
    expect(asked.status).toBe(200)
    expect(asked.body).toEqual({ ok: false, confirmAs: email })
    expect(asked.headers.getSetCookie()).toEqual([])
    expect(await verifiedAt(email)).toBeNull()

    // Continuing signs this browser in, and moves none of its runs (nor the sender's) into the account.
    const continued = await verifyOnThePage(token, victim.headers, { continue: '1' })
    expect(continued.status).toBe(302)
    expect(cookieFrom(continued.headers)).toMatch(/fs_session=/)
    expect(await verifiedAt(email)).not.toBeNull()
    expect(await ownerOf(victimsRun.id)).toBe(victim.accountId)
    expect(await ownerOf(sendersRun.id)).toBe(sender.accountId)
    expect((await historyOf(victim.headers)).entries.map((e) => e.id)).toEqual([victimsRun.id])
  })

  it('the browser that signed up is signed in at once and its runs are carried', async () => {
    const guest = await newVisitor()
    const run = await delivered(await queuedJob(guest.accountId))
    const { email, token, browser } = await signUpOnThePage(guest)
    const answer = await verifyOnThePage(token, browser)
    expect(answer.status).toBe(302)
    expect(cookieFrom(answer.headers)).toMatch(/fs_session=/)
    const user = await getDb().selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    const moved = await getDb().selectFrom('tool_jobs').select('user_id').where('id', '=', run.id).executeTakeFirstOrThrow()
    expect(moved.user_id).toBe(user.id)
  })

  it("the API verifies a forwarded link for its caller, but sets no browser session and carries nothing", async () => {
    const sender = await newVisitor()
    const victim = await newVisitor()
    const victimsRun = await delivered(await queuedJob(victim.accountId))
    const { token } = await signUpOnThePage(sender)
    const answer = await readResult(await apiVerify(routeArgs(jsonRequest('/api/auth/verify-email/', { token }, { headers: victim.headers }))))
    expect(answer.status).toBe(200)
    expect(typeof answer.body.token).toBe('string')
    expect(answer.headers.getSetCookie()).toEqual([])
    expect(await ownerOf(victimsRun.id)).toBe(victim.accountId)
  })

  it('moves ended runs, completed batches and their results (not credits, not runs still underway), in the verification', async () => {
    const guest = await newVisitor()
    const done = await delivered(await queuedJob(guest.accountId, { name: 'mine.png' }))
    const underway = await queuedJob(guest.accountId, { name: 'underway.png' })
    const guestBalance = (await getDb().selectFrom('credit_accounts').select('balance').where('id', '=', guest.accountId).executeTakeFirstOrThrow()).balance
    const ledgerBefore = await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', guest.accountId).execute()

    const { token, visitorId, browserKey } = await signUp(guest)
    const verified = await verifyEmailCarryingGuestRuns(token, { visitorId, browserKey })
    if (!verified.ok) throw new Error(JSON.stringify(verified))
    const userHeaders = { authorization: `Token ${verified.session.token}`, 'x-facet-client-ip': randomIp() }

    const page = await historyOf(userHeaders)
    expect(page.scope).toBe('user')
    expect(page.entries.map((e) => e.id)).toEqual([done.id])
    // The result and its thumbnail are the account's now, and no longer the guest's.
    const result = (await resultLoader(routeArgs(new Request(`${BASE}/api/results/${done.result_id}`, { headers: userHeaders }), { id: done.result_id! }))) as Response
    expect(result.status).toBe(200)
    expect((await thumbnail(done.result_id!, userHeaders)).status).toBe(200)
    expect((await thumbnail(done.result_id!, guest.headers)).status).toBe(404)
    expect((await historyOf(guest.headers)).entries.map((e) => e.id)).toEqual([underway.id])
    const moved = await getDb().selectFrom('tool_jobs').select(['account_id', 'user_id']).where('id', '=', done.id).executeTakeFirstOrThrow()
    expect(moved.user_id).toBe(verified.user.id)

    // Credits stay: the guest's balance and ledger rows, and the account has only its welcome bonus.
    const after = await getDb().selectFrom('credit_accounts').select('balance').where('id', '=', guest.accountId).executeTakeFirstOrThrow()
    expect(after.balance).toBe(guestBalance)
    expect(await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', guest.accountId).execute()).toEqual(ledgerBefore)
    const userLedger = await getDb().selectFrom('credit_transactions').select('kind').where('account_id', '=', moved.account_id).execute()
    expect(userLedger.map((t) => t.kind)).toEqual(['bonus'])
  })

  it("does not carry the runs of an address's shared visitor, nor anything without a visitor", async () => {
    const guest = await newVisitor()
    const done = await delivered(await queuedJob(guest.accountId))
    const { token, visitorId, browserKey } = await signUp(guest)
    await getDb().updateTable('visitors').set({ shared_address: '10.0.0.0' }).where('id', '=', visitorId!).execute()
    const verified = await verifyEmailCarryingGuestRuns(token, { visitorId, browserKey })
    if (!verified.ok) throw new Error(JSON.stringify(verified))
    const job = await getDb().selectFrom('tool_jobs').select('account_id').where('id', '=', done.id).executeTakeFirstOrThrow()
    expect(job.account_id).toBe(guest.accountId)
  })
})
