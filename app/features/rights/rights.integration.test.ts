// The user's rights (decision 171), through the route modules on a real database: the export holds
// each kind of the user's data and no secret; the deletion removes each kind, keeps the ledger (its sum
// still the balance), refuses a team's last owner and runs in progress without changing anything, is
// audited and mailed; afterwards the old credentials get 401 and the address signs up as a new account.
import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { registerUser, verifyEmail } from '~/features/auth/accounts.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { grant, grantWelcomeBonus } from '~/features/credits/ledger.server'
import { insertResultEdit } from '~/features/corrections/store.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { createTeam } from '~/features/teams/teams.server'
import { resultExpiry, sealBytes, storeResult } from '~/features/jobs/results.server'
import { chargedJob, ledgerSum } from '../../../tests/support/tools'
import { readZip } from '../../../tests/support/zip'
import { BASE, answerOf, formRequest, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { action as deleteApi } from '~/routes/api.account._index'
import { loader as exportApi } from '~/routes/api.account.export'
import { action as exportForm } from '~/routes/account.export'
import { action as deletePage } from '~/routes/account.delete'
import { deletedAddress } from './deletion.server'
import { EXPORT_JSON_NAME } from './export.server'
import { TEAM_KEY_NOT_A_PERSON } from '~/features/account/guards.server'
import { BALANCE_FORFEITED, lastOwnerMessage, RUNS_IN_PROGRESS, WRONG_PASSWORD } from './messages'

const db = () => getDb()

async function whoIs(authorization: string) {
  return (await getAuthentication(new Request(`${BASE}/api/auth/profile/`, { headers: { authorization } }))).kind
}

async function keyOf(userId: string, name: string, teamId: string | null = null) {
  const made = await createApiKey(userId, { name, environment: 'live', teamId })
  if (!made.ok) throw new Error('no key')
  return made.key
}

async function accountOf(userId: string) {
  return (await db().selectFrom('credit_accounts').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow()).id
}

async function teamAccountOf(teamId: string) {
  return (await db().selectFrom('credit_accounts').select('id').where('team_id', '=', teamId).executeTakeFirstOrThrow()).id
}

async function join(teamId: string, userId: string, role: 'owner' | 'admin' | 'member') {
  await db().insertInto('team_members').values({ team_id: teamId, user_id: userId, role, monthly_cap: null }).execute()
}

/** A finished run on `accountId` with its result kept and (for the own account) what its correction keeps. */
async function finishedRun(accountId: string, userId: string, name: string, bytes: Buffer, withEdit: boolean) {
  const job = await chargedJob({ accountId, headers: {} })
  const resultId = await storeResult({ ownerAccountId: accountId, bytes, contentType: 'image/png', filename: name })
  await db()
    .updateTable('tool_jobs')
    .set({ status: 'succeeded', outcome: 'success', result_id: resultId, filename: name, user_id: userId, upload_iv: null, upload_auth_tag: null, upload_ciphertext: null, finished_at: new Date() })
    .where('id', '=', job.id)
    .execute()
  if (withEdit) await insertResultEdit({ jobId: job.id, accountId, kept: { kind: 'cutout', facts: { parts: 2 }, source: Buffer.from('packed source') }, expiresAt: resultExpiry(new Date()) })
  return { jobId: job.id, resultId }
}

async function webhookOn(accountId: string, url: string) {
  const sealed = sealBytes('webhook', Buffer.from('whsec_not-for-export'))
  return (
    await db()
      .insertInto('webhook_endpoints')
      .values({ account_id: accountId, url, events: ['job.succeeded'], secret_iv: sealed.iv, secret_tag: sealed.auth_tag, secret_ciphertext: sealed.ciphertext })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
}

async function invite(teamId: string, email: string, invitedBy: string) {
  await db()
    .insertInto('team_invites')
    .values({ team_id: teamId, email, role: 'member', token_hash: randomBytes(16).toString('hex'), invited_by: invitedBy, expires_at: new Date(Date.now() + 86_400_000) })
    .execute()
}

/** A user with one of everything: the export must hold each, the deletion must remove (or keep) each. */
async function richUser() {
  const me = await createVerifiedUser({ first_name: 'Ada', last_name: 'Lovelace' })
  const other = await createVerifiedUser({ first_name: 'Bea' })
  await grantWelcomeBonus(me.user.id)
  const ownId = await accountOf(me.user.id)
  const png = randomBytes(300)
  const own = await finishedRun(ownId, me.user.id, 'portrait-cutout.png', png, true)
  await db().insertInto('batches').values({ id: randomUUID(), account_id: ownId, api_key_id: null, tool: 'background-remover', total: 2, skipped: '[]' }).execute()
  const personalKey = await keyOf(me.user.id, 'laptop script')
  // Alone in one team (it closes with the account); a second owner in another (they leave); a member of someone else's.
  const alone = await createTeam(me.user.id, 'Solo studio')
  const teamKey = await keyOf(me.user.id, 'solo pipeline', alone.id)
  await invite(alone.id, uniqueEmail('pending'), me.user.id)
  const shared = await createTeam(me.user.id, 'Shared studio')
  await join(shared.id, other.user.id, 'owner')
  const theirs = await createTeam(other.user.id, 'Bea team')
  await join(theirs.id, me.user.id, 'member')
  await invite(theirs.id, me.user.email, other.user.id)
  await grant({ accountId: await teamAccountOf(theirs.id), amount: 10, kind: 'adjustment', description: 'Operator grant' })
  const teamRun = await finishedRun(await teamAccountOf(theirs.id), me.user.id, 'team-run.png', randomBytes(200), true)
  const webhookId = await webhookOn(ownId, 'https://hooks.example.test/facet')
  await db().insertInto('contact_messages').values({ full_name: 'Ada Lovelace', email: me.user.email, company: null, message: 'Hello from Ada' }).execute()
  return { me, other, ownId, png, own, personalKey, teamKey, alone, shared, theirs, teamRun, webhookId }
}

async function exportOf(authorization: string) {
  const answer = await readResult(await answerOf(exportApi(routeArgs(new Request(`${BASE}/api/account/export/`, { headers: { authorization } })))))
  return answer
}

describe('the export', () => {
  it('is a zip of every kind of the user’s data and the result files still kept, with no secret in it', async () => {
    const s = await richUser()
    const answer = await exportOf(`Token ${s.me.token}`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('application/zip')
    expect(answer.headers.get('content-disposition')).toMatch(/attachment; filename="facet-studio-export-\d{4}-\d{2}-\d{2}\.zip"/)
    const files = await readZip(answer.body as ArrayBuffer, { strict: true })
    const text = files.get(EXPORT_JSON_NAME)!.toString('utf8')
    const data = JSON.parse(text)

    expect(data.account).toMatchObject({ id: s.me.user.id, email: s.me.user.email, first_name: 'Ada', last_name: 'Lovelace', email_verified: true })
    expect(data.account.plan).toEqual({ account_type: 'user', credits: 'pay per run' })
    expect(data.credits.balance).toBe(49)
    expect(data.credits.ledger.map((e: { description: string | null; delta: number }) => e.delta)).toEqual(expect.arrayContaining([50, -1]))
    // The run the user sent on Bea's team is theirs too, with its team's charge.
    expect(data.jobs.map((j: { id: string }) => j.id).sort()).toEqual([s.own.jobId, s.teamRun.jobId].sort())
    const ownJob = data.jobs.find((j: { id: string }) => j.id === s.own.jobId)
    expect(ownJob.result).toMatchObject({ id: s.own.resultId, filename: 'portrait-cutout.png' })
    expect(files.get(ownJob.result.file)).toEqual(s.png)
    expect(data.result_files).toHaveLength(2)
    expect(data.batches).toHaveLength(1)
    expect(data.corrections.map((c: { job_id: string }) => c.job_id).sort()).toEqual([s.own.jobId, s.teamRun.jobId].sort())
    expect(data.corrections[0].found_by_the_model).toEqual({ parts: 2 })
    expect(data.api_keys.map((k: { name: string; prefix: string }) => [k.name, k.prefix]).sort()).toEqual(
      [
        ['laptop script', s.personalKey.prefix],
        ['solo pipeline', s.teamKey.prefix],
      ].sort(),
    )
    expect(data.teams.map((t: { name: string; role: string }) => [t.name, t.role]).sort()).toEqual([
      ['Bea team', 'member'],
      ['Shared studio', 'owner'],
      ['Solo studio', 'owner'],
    ])
    expect(data.invites.received.map((i: { team_name: string }) => i.team_name)).toEqual(['Bea team'])
    expect(data.invites.sent).toHaveLength(1)
    expect(data.webhooks).toEqual([{ id: s.webhookId, url: 'https://hooks.example.test/facet', events: ['job.succeeded'], created_at: expect.any(String) }])
    expect(data.messages.contact.map((m: { message: string }) => m.message)).toEqual(['Hello from Ada'])

    // No secret: not the keys, their hashes, the password hash, the session token or a webhook secret.
    const hashes = await db().selectFrom('api_keys').select('key_hash').where('user_id', '=', s.me.user.id).execute()
    const password = await db().selectFrom('users').select('password_hash').where('id', '=', s.me.user.id).executeTakeFirstOrThrow()
    for (const secret of [s.personalKey.key, s.teamKey.key, ...hashes.map((h) => h.key_hash), password.password_hash, s.me.token, 'whsec_']) expect(text).not.toContain(secret)
    expect(text).not.toContain('key_hash')
    // Nothing of the other member's own: Bea's email appears nowhere.
    expect(text).not.toContain(s.other.user.email)
  })

  it('refuses a team key (403), and the dashboard form answers the same zip to the signed-in cookie', async () => {
    const s = await richUser()
    const refused = await readResult(await answerOf(exportApi(routeArgs(new Request(`${BASE}/api/account/export/`, { headers: { authorization: `Bearer ${s.teamKey.key}` } })))))
    expect(refused.status).toBe(403)
    expect(refused.body.error).toBe(TEAM_KEY_NOT_A_PERSON)
    const byKey = await exportOf(`Bearer ${s.personalKey.key}`)
    expect(byKey.status).toBe(200)

    const cookie = (await sessionCookieHeader(s.me.token)).split(';')[0]!
    const fromForm = await readResult(await answerOf(exportForm(routeArgs(formRequest('/account/export', {}, { headers: { cookie } })))))
    expect(fromForm.status).toBe(200)
    const files = await readZip(fromForm.body as ArrayBuffer)
    expect(JSON.parse(files.get(EXPORT_JSON_NAME)!.toString('utf8')).account.email).toBe(s.me.user.email)
    // Signed out: the form sends the browser to sign in.
    const signedOut = await readResult(await answerOf(exportForm(routeArgs(formRequest('/account/export', {})))))
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('location')).toMatch(/^\/login\?from=/)
  })
})

async function deleteBy(authorization: string, password: string) {
  return readResult(await answerOf(deleteApi(routeArgs(jsonRequest('/api/account/', { password }, { method: 'DELETE', headers: { authorization } })))))
}

describe('deleting an account', () => {
  it('removes each kind of data, keeps the ledger balanced, is audited and mailed, and ends every credential', async () => {
    const s = await richUser()
    const teamAccount = await teamAccountOf(s.theirs.id)
    const teamLedgerBefore = await db().selectFrom('credit_transactions').select('id').where('account_id', '=', teamAccount).execute()
    const ownLedgerBefore = await db().selectFrom('credit_transactions').select(['id', 'delta']).where('account_id', '=', s.ownId).execute()

    const wrong = await deleteBy(`Bearer ${s.personalKey.key}`, 'not-the-password')
    expect(wrong.status).toBe(403)
    expect(wrong.body.error).toBe(WRONG_PASSWORD)
    expect(await whoIs(`Bearer ${s.personalKey.key}`)).toBe('key')

    const answer = await deleteBy(`Bearer ${s.personalKey.key}`, s.me.password)
    expect(answer.status).toBe(200)
    expect(answer.body.deleted).toMatchObject({
      api_keys_revoked: 2,
      results_deleted: 2,
      corrections_deleted: 2,
      runs_deleted: 1,
      batches_deleted: 1,
      webhooks_removed: 1,
      invites_removed: 1,
      teams_left: expect.arrayContaining(['Shared studio', 'Bea team']),
      teams_closed: ['Solo studio'],
      credits_forfeited: 49,
    })

    // Credentials: the session, both keys.
    for (const credential of [`Token ${s.me.token}`, `Bearer ${s.personalKey.key}`, `Bearer ${s.teamKey.key}`]) expect(await whoIs(credential)).toBe('invalid')
    expect(await db().selectFrom('sessions').select('id').where('user_id', '=', s.me.user.id).execute()).toEqual([])
    // Results, corrections, runs, batches, webhooks, memberships, invites, messages.
    expect(await db().selectFrom('results').select('id').where('id', 'in', [s.own.resultId, s.teamRun.resultId]).execute()).toEqual([])
    expect(await db().selectFrom('result_edits').select('job_id').where('job_id', 'in', [s.own.jobId, s.teamRun.jobId]).execute()).toEqual([])
    expect(await db().selectFrom('tool_jobs').select('id').where('account_id', '=', s.ownId).execute()).toEqual([])
    expect(await db().selectFrom('batches').select('id').where('account_id', '=', s.ownId).execute()).toEqual([])
    expect(await db().selectFrom('webhook_endpoints').select('id').where('id', '=', s.webhookId).execute()).toEqual([])
    expect(await db().selectFrom('team_members').select('team_id').where('user_id', '=', s.me.user.id).execute()).toEqual([])
    expect(await db().selectFrom('team_invites').select('id').where('email', '=', s.me.user.email).execute()).toEqual([])
    expect(await db().selectFrom('contact_messages').select('id').where('email', '=', s.me.user.email).execute()).toEqual([])
    // The team run's record stays for Bea's team's books, without its file name or result.
    const teamJob = await db().selectFrom('tool_jobs').select(['original_name', 'result_id']).where('id', '=', s.teamRun.jobId).executeTakeFirstOrThrow()
    expect(teamJob).toEqual({ original_name: 'deleted', result_id: null })
    // The team the user was alone in is closed: nothing of it can act.
    const soloInvites = await db().selectFrom('team_invites').select('revoked_at').where('team_id', '=', s.alone.id).execute()
    expect(soloInvites.every((i) => i.revoked_at !== null)).toBe(true)
    // The other owner still has the shared team.
    expect(await db().selectFrom('team_members').select('role').where('team_id', '=', s.shared.id).execute()).toEqual([{ role: 'owner' }])

    // The user row: anonymised, the address free again.
    const row = await db().selectFrom('users').selectAll().where('id', '=', s.me.user.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ email: deletedAddress(s.me.user.id), first_name: null, last_name: null, email_verified_at: null })
    expect(row.deleted_at).not.toBeNull()
    // The ledger: every row kept, one more that takes the rest off; the balance is still the sum.
    const ownLedgerAfter = await db().selectFrom('credit_transactions').select(['id', 'delta', 'description']).where('account_id', '=', s.ownId).orderBy('id').execute()
    expect(ownLedgerAfter.map((e) => e.id).slice(0, ownLedgerBefore.length).sort()).toEqual(ownLedgerBefore.map((e) => e.id).sort())
    expect(ownLedgerAfter.at(-1)).toMatchObject({ delta: -49, description: BALANCE_FORFEITED })
    expect(await ledgerSum(s.ownId)).toEqual({ balance: 0, sum: 0 })
    expect(await db().selectFrom('credit_transactions').select('id').where('account_id', '=', teamAccount).execute()).toEqual(teamLedgerBefore)
    const team = await ledgerSum(teamAccount)
    expect(team.balance).toBe(team.sum)

    const audit = await db().selectFrom('audit_log').select(['actor', 'actor_email', 'details']).where('action', '=', 'account.delete').where('target_id', '=', s.me.user.id).execute()
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actor: s.me.user.id, actor_email: s.me.user.email })
    await waitForPendingMail()
    const mail = (await readOutbox(s.me.user.email)).find((m) => m.subject === 'Your Facet Studio account was deleted')
    expect(mail?.text).toContain('deleted at your request')

    // A second try with the old key: 401.
    const again = await deleteBy(`Bearer ${s.personalKey.key}`, s.me.password)
    expect(again.status).toBe(401)
  })

  it('lets the same address sign up again as a new account with none of the old data', async () => {
    const me = await createVerifiedUser()
    const ownId = await accountOf((await grantWelcomeBonus(me.user.id), me.user.id))
    await finishedRun(ownId, me.user.id, 'old.png', randomBytes(50), false)
    expect((await deleteBy(`Token ${me.token}`, me.password)).status).toBe(200)

    await registerUser({ email: me.user.email, password: 'a-new-password', first_name: null, last_name: null })
    const token = (await linkMailedTo(me.user.email)).searchParams.get('token')!
    const verified = await verifyEmail(token, { confirmed: true })
    if (!verified.ok) throw new Error('not verified')
    expect(verified.user.id).not.toBe(me.user.id)
    const fresh = await exportOf(`Token ${verified.session.token}`)
    const data = JSON.parse((await readZip(fresh.body as ArrayBuffer)).get(EXPORT_JSON_NAME)!.toString('utf8'))
    expect(data.jobs).toEqual([])
    expect(data.credits.ledger.map((e: { description: string }) => e.description)).toEqual(['Welcome bonus'])
  })

  it('refuses the last owner of a team with other members, naming it, and changes nothing', async () => {
    const me = await createVerifiedUser()
    const member = await createVerifiedUser()
    const held = await createTeam(me.user.id, 'Held team')
    await join(held.id, member.user.id, 'admin')
    const alone = await createTeam(me.user.id, 'Alone team')
    const key = await keyOf(me.user.id, 'still here')

    const answer = await deleteBy(`Token ${me.token}`, me.password)
    expect(answer.status).toBe(409)
    expect(answer.body.error).toBe(lastOwnerMessage(['Held team']))
    // Rolled back whole: the team the user is alone in is not closed, nothing ended.
    expect(await db().selectFrom('team_members').select('team_id').where('user_id', '=', me.user.id).execute()).toHaveLength(2)
    expect(await whoIs(`Token ${me.token}`)).toBe('user')
    expect(await whoIs(`Bearer ${key.key}`)).toBe('key')
    expect((await db().selectFrom('users').select('email').where('id', '=', me.user.id).executeTakeFirstOrThrow()).email).toBe(me.user.email)
    expect(await db().selectFrom('audit_log').select('id').where('action', '=', 'account.delete').where('target_id', '=', me.user.id).execute()).toEqual([])
    expect(alone.id).toBeTruthy()

    // Once the member is an owner, the account can go.
    await db().updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', held.id).where('user_id', '=', member.user.id).execute()
    expect((await deleteBy(`Token ${me.token}`, me.password)).status).toBe(200)
  })

  it('waits for runs in progress (409, nothing changed)', async () => {
    const me = await createVerifiedUser()
    await grantWelcomeBonus(me.user.id)
    const ownId = await accountOf(me.user.id)
    await chargedJob({ accountId: ownId, headers: {} }, { status: 'running' })
    const answer = await deleteBy(`Token ${me.token}`, me.password)
    expect(answer.status).toBe(409)
    expect(answer.body.error).toBe(RUNS_IN_PROGRESS)
    expect(await whoIs(`Token ${me.token}`)).toBe('user')
  })

  it('from the page: a wrong password is shown on the form; the right one signs out and lands on /account/deleted', async () => {
    const me = await createVerifiedUser()
    const cookie = (await sessionCookieHeader(me.token)).split(';')[0]!
    const wrong = await readResult(await answerOf(deletePage(routeArgs(formRequest('/account/delete', { password: 'nope-nope' }, { headers: { cookie } })))))
    expect(wrong.status).toBe(403)
    expect(wrong.body.result.error['']).toEqual([WRONG_PASSWORD])
    const done = await readResult(await answerOf(deletePage(routeArgs(formRequest('/account/delete', { password: me.password }, { headers: { cookie } })))))
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe('/account/deleted')
    expect(done.headers.get('set-cookie')).toMatch(/fs_session=;.*Max-Age=0/i)
    expect(await whoIs(`Token ${me.token}`)).toBe('invalid')
  })
})
