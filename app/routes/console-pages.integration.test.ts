// The operator console through its loaders and actions (what a browser runs, with or without
// JavaScript): the 404 guard for guests and non-operators, grants and seat changes that write the
// ledger row and the audit entry in one transaction (a failure rolls both back), the lists, and the
// audit log's filters and CSV export.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, uniqueEmail } from '~/features/auth/testing.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { listAudit } from '~/features/audit/audit.server'
import { CONSOLE_NOTICES } from '~/features/console/forms'
import { createTeam } from '~/features/teams/teams.server'
import { failStatement } from '../../tests/support/fail-statement'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../tests/support/requests'
import { loader as layoutLoader } from './console'
import { loader as accountsLoader } from './console._index'
import { loader as auditLoader } from './console.audit'
import { loader as csvLoader } from './console.audit[.]csv'
import { loader as queueLoader } from './console.queue'
import { action as teamAction, loader as teamLoader } from './console.teams.$id'
import { action as userAction, loader as userLoader } from './console.users.$id'

const operatorEmail = uniqueEmail('operator')

async function signedIn(email?: string) {
  const made = await createVerifiedUser(email ? { email } : {})
  const cookie = (await sessionCookieHeader(made.token)).split(';')[0]
  return { ...made, cookie }
}
type Person = Awaited<ReturnType<typeof signedIn>>

let operator: Person

beforeAll(async () => {
  process.env.OPERATOR_EMAILS = `someone-else@example.test, ${operatorEmail.toUpperCase()}`
  resetConfigForTests()
  operator = await signedIn(operatorEmail)
})
afterAll(() => {
  delete process.env.OPERATOR_EMAILS
  resetConfigForTests()
})

const get = (person: Person | null, path: string, params: Record<string, string> = {}) =>
  routeArgs(new Request(BASE + path, { headers: person ? { cookie: person.cookie } : {} }), params)
const post = (person: Person | null, path: string, fields: Record<string, string>, params: Record<string, string> = {}) =>
  routeArgs(formRequest(path, fields, { headers: person ? { cookie: person.cookie } : {} }), params)

async function thrownStatus(work: () => Promise<unknown>): Promise<number> {
  try {
    await work()
  } catch (error) {
    if (error instanceof Response) return error.status
    throw error
  }
  throw new Error('expected a thrown response')
}

async function balanceOf(userId: string) {
  const row = await getDb().selectFrom('credit_accounts').select('balance').where('user_id', '=', userId).executeTakeFirst()
  return row?.balance ?? 0
}

async function ledgerRows(userId: string) {
  return getDb()
    .selectFrom('credit_transactions as c')
    .innerJoin('credit_accounts as a', 'a.id', 'c.account_id')
    .select(['c.delta', 'c.kind', 'c.description'])
    .where('a.user_id', '=', userId)
    .where('c.kind', '=', 'adjustment')
    .execute()
}

describe('the guard', () => {
  it('answers 404 to guests and to signed-in non-operators, on every loader and action', async () => {
    const stranger = await signedIn()
    const target = await createVerifiedUser()
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Guarded ${randomUUID().slice(0, 8)}`)
    for (const who of [null, stranger]) {
      expect(await thrownStatus(() => layoutLoader(get(who, '/console')))).toBe(404)
      expect(await thrownStatus(() => accountsLoader(get(who, '/console')))).toBe(404)
      expect(await thrownStatus(() => queueLoader(get(who, '/console/queue')))).toBe(404)
      expect(await thrownStatus(() => auditLoader(get(who, '/console/audit')))).toBe(404)
      expect(await thrownStatus(() => csvLoader(get(who, '/console/audit.csv')))).toBe(404)
      expect(await thrownStatus(() => userLoader(get(who, `/console/users/${target.user.id}`, { id: target.user.id })))).toBe(404)
      expect(await thrownStatus(() => teamLoader(get(who, `/console/teams/${team.id}`, { id: team.id })))).toBe(404)
      const grant = { intent: 'grant', amount: '100', reason: 'Free money' }
      expect(await thrownStatus(() => userAction(post(who, `/console/users/${target.user.id}`, grant, { id: target.user.id })))).toBe(404)
      expect(await thrownStatus(() => teamAction(post(who, `/console/teams/${team.id}`, grant, { id: team.id })))).toBe(404)
      expect(await thrownStatus(() => teamAction(post(who, `/console/teams/${team.id}`, { intent: 'seats', seats: '99' }, { id: team.id })))).toBe(404)
    }
    expect(await balanceOf(target.user.id)).toBe(0)
    expect((await listAudit({ target: target.user.id })).rows).toEqual([])
  })

  it('lets an account named in OPERATOR_EMAILS in (any case)', async () => {
    expect(await layoutLoader(get(operator, '/console'))).toBeNull()
    const page = await readResult(await queueLoader(get(operator, '/console/queue')))
    expect(page.body.queue).toMatchObject({ waiting: expect.any(Number), running: expect.any(Number), workers: expect.any(Array) })
  })
})

describe('grants', () => {
  it('a console grant writes the ledger row and the audit entry, and the page says so once', async () => {
    const target = await createVerifiedUser()
    const here = `/console/users/${target.user.id}`
    const res = await readResult(await userAction(post(operator, here, { intent: 'grant', amount: '40', reason: 'Refund for outage' }, { id: target.user.id })))
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(here)
    expect(await balanceOf(target.user.id)).toBe(40)
    expect(await ledgerRows(target.user.id)).toEqual([{ delta: 40, kind: 'adjustment', description: 'Refund for outage' }])
    const [entry] = (await listAudit({ target: target.user.id })).rows
    expect(entry).toMatchObject({
      actor: operator.user.id,
      actorEmail: operator.user.email,
      action: 'credits.grant',
      details: { amount: 40, reason: 'Refund for outage', via: 'console', balance: 40 },
    })
    const page = await readResult(await userLoader(routeArgs(new Request(BASE + here, { headers: { cookie: `${operator.cookie}; ${cookieFrom(res.headers)}` } }), { id: target.user.id })))
    expect(page.body.notice).toBe(CONSOLE_NOTICES.granted)
    expect(page.body.user.balance).toBe(40)
    expect(page.body.audit).toHaveLength(1)
    // The user's page also lists what they did themselves (here: an API key they made).
    const made = await createApiKey(target.user.id, { name: 'Their script', environment: 'live' })
    const later = await readResult(await userLoader(get(operator, here, { id: target.user.id })))
    expect(later.body.audit.map((e: { action: string }) => e.action)).toEqual(['api_key.create', 'credits.grant'])
    expect(made.ok).toBe(true)
  })

  it('when the audit entry cannot be written, the grant is rolled back with it', async () => {
    const target = await createVerifiedUser()
    const failure = await failStatement(getDb(), 'audit_log', 'INSERT', `NEW.target_id = '${target.user.id}'`)
    try {
      await expect(userAction(post(operator, `/console/users/${target.user.id}`, { intent: 'grant', amount: '40', reason: 'x' }, { id: target.user.id }))).rejects.toThrow(/injected failure/)
    } finally {
      await failure.remove()
    }
    expect(await balanceOf(target.user.id)).toBe(0)
    expect(await ledgerRows(target.user.id)).toEqual([])
    expect((await listAudit({ target: target.user.id })).rows).toEqual([])
  })

  it('when the ledger write fails, no audit entry is left behind', async () => {
    const target = await createVerifiedUser()
    const failure = await failStatement(getDb(), 'credit_transactions', 'INSERT', `NEW.description = 'ledger-fails-${target.user.id}'`)
    try {
      await expect(userAction(post(operator, `/console/users/${target.user.id}`, { intent: 'grant', amount: '5', reason: `ledger-fails-${target.user.id}` }, { id: target.user.id }))).rejects.toThrow(/injected failure/)
    } finally {
      await failure.remove()
    }
    expect(await balanceOf(target.user.id)).toBe(0)
    expect((await listAudit({ target: target.user.id })).rows).toEqual([])
  })

  it('refuses a bad form with the operator channel’s messages and writes nothing', async () => {
    const target = await createVerifiedUser()
    const at = (fields: Record<string, string>) => userAction(post(operator, `/console/users/${target.user.id}`, { intent: 'grant', ...fields }, { id: target.user.id }))
    const noReason = await readResult(await at({ amount: '5', reason: '  ' }))
    expect(noReason.status).toBe(400)
    expect(noReason.body.errors.reason).toEqual(['A reason is required (it is shown in the ledger).'])
    const notNumber = await readResult(await at({ amount: 'ten', reason: 'x' }))
    expect(notNumber.status).toBe(400)
    expect(notNumber.body.formError).toMatch(/whole number of credits/)
    const tooMuch = await readResult(await at({ amount: '-5', reason: 'Take back' }))
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.formError).toMatch(/the balance is only 0/)
    expect(await balanceOf(target.user.id)).toBe(0)
    expect((await listAudit({ target: target.user.id })).rows).toEqual([])
    expect(await thrownStatus(() => userLoader(get(operator, '/console/users/nobody', { id: 'nobody' })))).toBe(404)
  })

  it('grants to a team and changes its seats, each with its audit entry by the operator', async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Console ${randomUUID().slice(0, 8)}`)
    const here = `/console/teams/${team.id}`
    const granted = await readResult(await teamAction(post(operator, here, { intent: 'grant', amount: '120', reason: 'Pilot' }, { id: team.id })))
    expect(granted.status).toBe(303)
    const seats = await readResult(await teamAction(post(operator, here, { intent: 'seats', seats: '12' }, { id: team.id })))
    expect(seats.status).toBe(303)
    const badSeats = await readResult(await teamAction(post(operator, here, { intent: 'seats', seats: '0' }, { id: team.id })))
    expect(badSeats.status).toBe(400)
    expect(badSeats.body.formError).toMatch(/Seats must be a whole number from 1/)
    const page = await readResult(await teamLoader(get(operator, here, { id: team.id })))
    expect(page.body.team).toMatchObject({ balance: 120, seatLimit: 12, members: 1 })
    expect(page.body.audit.map((e: { action: string; actor: string }) => [e.actor, e.action])).toEqual([
      [operator.user.id, 'team.seats.set'],
      [operator.user.id, 'team.credits.grant'],
    ])
  })
})

describe('lists', () => {
  it('finds users and teams by email or name, a page at a time', async () => {
    const tag = randomUUID().slice(0, 8)
    const user = await createVerifiedUser({ email: `findme-${tag}@example.test`, first_name: 'Zora', last_name: `Q${tag}` })
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Findable ${tag}`)
    const byEmail = await readResult(await accountsLoader(get(operator, `/console?q=findme-${tag}`)))
    expect(byEmail.body.users.rows.map((u: { id: string }) => u.id)).toEqual([user.user.id])
    const byName = await readResult(await accountsLoader(get(operator, `/console?q=${encodeURIComponent(`zora q${tag}`)}`)))
    expect(byName.body.users.rows.map((u: { id: string }) => u.id)).toEqual([user.user.id])
    const byTeam = await readResult(await accountsLoader(get(operator, `/console?q=findable ${tag}`)))
    expect(byTeam.body.teams.rows).toEqual([expect.objectContaining({ id: team.id, balance: 0, members: 1, seatLimit: 5 })])
    // LIKE's wildcards are taken literally.
    const wildcard = await readResult(await accountsLoader(get(operator, '/console?q=%25')))
    expect(wildcard.body.users.rows).toEqual([])

    // Paging: 26 users share a tag; the first page has 25 and says there is more, the second the last one.
    const many = `many-${tag}`
    for (let i = 0; i < 26; i++) await createVerifiedUser({ email: `${many}-${i}@example.test` })
    const first = await readResult(await accountsLoader(get(operator, `/console?q=${many}`)))
    expect(first.body.users.rows).toHaveLength(25)
    expect(first.body.users.hasMore).toBe(true)
    const second = await readResult(await accountsLoader(get(operator, `/console?q=${many}&users=2`)))
    expect(second.body.users).toMatchObject({ page: 2, hasMore: false })
    expect(second.body.users.rows).toHaveLength(1)
    const seen = new Set([...first.body.users.rows, ...second.body.users.rows].map((u: { id: string }) => u.id))
    expect(seen.size).toBe(26)
  })

  it('shows failed jobs with their errors and failing webhook deliveries', async () => {
    const owner = await createVerifiedUser()
    const account = await getDb().selectFrom('credit_accounts').select('id').where('user_id', '=', owner.user.id).executeTakeFirst()
    const accountId =
      account?.id ?? (await getDb().insertInto('credit_accounts').values({ user_id: owner.user.id, balance: 0, last_refresh_day: null }).returning('id').executeTakeFirstOrThrow()).id
    const jobId = randomUUID()
    await getDb()
      .insertInto('tool_jobs')
      .values({
        id: jobId,
        account_id: accountId,
        tool: 'background-remover',
        options: '{}',
        original_name: 'x.png',
        input_bytes: 1,
        input_width: 1,
        input_height: 1,
        notes: '[]',
        idempotency_key: null,
        request_fingerprint: 'f',
        charge_transaction_id: null,
        api_key_id: null,
        batch_id: null,
        batch_position: null,
        upload_iv: null,
        upload_auth_tag: null,
        upload_ciphertext: null,
        status: 'failed',
        outcome: 'failed',
        error: `The model could not run (${jobId})`,
        error_status: 500,
        result_id: null,
        filename: null,
        faces_found: null,
        gfpgan_available: null,
        note: null,
        stage: null,
        started_at: new Date(),
        heartbeat_at: null,
        finished_at: new Date(),
      })
      .execute()
    const endpoint = await getDb()
      .insertInto('webhook_endpoints')
      .values({ account_id: accountId, url: `https://hooks.example.test/${jobId}`, events: ['job.failed'], secret_iv: Buffer.alloc(12), secret_tag: Buffer.alloc(16), secret_ciphertext: Buffer.alloc(8) })
      .returning('id')
      .executeTakeFirstOrThrow()
    await getDb()
      .insertInto('webhook_deliveries')
      .values([
        { endpoint_id: endpoint.id, event_type: 'job.failed', payload: '{}', status: 'failed', attempts: 8, last_status_code: 502, last_error: 'Bad gateway' },
        { endpoint_id: endpoint.id, event_type: 'job.failed', payload: '{}', status: 'succeeded', attempts: 1, last_status_code: 200 },
      ])
      .execute()
    const page = await readResult(await queueLoader(get(operator, '/console/queue')))
    expect(page.body.jobs.rows).toContainEqual(expect.objectContaining({ id: jobId, tool: 'background-remover', error: `The model could not run (${jobId})`, errorStatus: 500, owner: { kind: 'user', id: owner.user.id, label: owner.user.email } }))
    const ours = page.body.deliveries.rows.filter((d: { url: string }) => d.url.endsWith(jobId))
    expect(ours).toEqual([expect.objectContaining({ status: 'failed', attempts: 8, lastStatusCode: 502, lastError: 'Bad gateway' })])
  })
})

describe('the audit log page and its CSV', () => {
  it('filters, names a filter it cannot read, and exports the same rows as injection-safe CSV', async () => {
    const target = await createVerifiedUser()
    const here = `/console/users/${target.user.id}`
    const evil = '=HYPERLINK("http://evil.example","click")'
    await userAction(post(operator, here, { intent: 'grant', amount: '5', reason: evil }, { id: target.user.id }))
    await userAction(post(operator, here, { intent: 'grant', amount: '6', reason: '@SUM(1+1), "quoted"' }, { id: target.user.id }))

    const page = await readResult(await auditLoader(get(operator, `/console/audit?action=credits.grant&target=${target.user.id}&actor=${encodeURIComponent(operatorEmail)}`)))
    expect(page.body.entries.rows).toHaveLength(2)
    const csvHref = new URL(page.body.csvHref, BASE)
    expect(csvHref.pathname).toBe('/console/audit.csv')
    expect(Object.fromEntries(csvHref.searchParams)).toEqual({ action: 'credits.grant', target: target.user.id, actor: operatorEmail })
    const bad = await readResult(await auditLoader(get(operator, `/console/audit?action=nope&from=2026-13-45&target=${target.user.id}`)))
    expect(bad.body.problems).toEqual(['Unknown action "nope".', '"2026-13-45" is not a date (YYYY-MM-DD).'])
    expect(bad.body.entries.rows).toHaveLength(2)

    const res = await csvLoader(get(operator, `/console/audit.csv?target=${target.user.id}`))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/)
    const lines = (await res.text()).split('\r\n')
    expect(lines[0]).toBe('id,created_at,actor,actor_email,action,target_type,target_id,details')
    expect(lines).toHaveLength(4) // header, two rows, and the empty string after the last CRLF
    expect(lines[3]).toBe('')
    // Newest first; each details cell is JSON starting with "{", so it is quoted, not prefixed.
    expect(lines[1]).toContain(`,${operator.user.id},${operatorEmail},credits.grant,user,${target.user.id},"{`)
    expect(lines[1]).toContain('""reason"":""@SUM(1+1), \\""quoted\\""""')
    expect(lines[2]).toContain('""reason"":""=HYPERLINK(\\""http://evil.example\\"",\\""click\\"")""')
    const empty = await csvLoader(get(operator, `/console/audit.csv?target=${randomUUID()}`))
    expect(await empty.text()).toBe('id,created_at,actor,actor_email,action,target_type,target_id,details\r\n')
  })
})
