// The developer API wired into tool runs, through the endpoints: a test key runs the whole contract
// without a ledger row and gets a result within the quarter-megapixel cap; every tool answer says
// what it charged (X-Credits-Charged); runs carry their key; each job's end is a webhook event
// queued in the outcome's transaction (job.succeeded / job.failed with the credits it kept).
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { TEST_RESULT_MAX_PIXELS } from '~/features/api-keys/environments'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { createEndpoint } from '~/features/webhooks/endpoints.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as postJob } from '~/routes/api.jobs._index'
import { fileOf, fixture, pngWithUnknownFilter } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'

beforeAll(() => {
  process.env.WEBHOOKS_ALLOW_PRIVATE = 'true'
  resetConfigForTests()
})

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

async function keyedAccount(environment: 'live' | 'test') {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: environment, environment })
  if (!made.ok) throw new Error('no key')
  const accountId = await ensureUserAccount(user.id)
  await createEndpoint(accountId, { url: 'http://127.0.0.1:9/hook', events: ['job.succeeded', 'job.failed'] })
  return { accountId, keyId: made.key.id, headers: { authorization: `Bearer ${made.key.key}`, 'x-facet-client-ip': uniqueAddress() } }
}

async function run(headers: Record<string, string>, file: File) {
  return readResult(await removeBg(routeArgs(formRequest('/api/remove-bg/', { image: file }, { headers }))))
}

// It passes the door (header, structure, every byte there), its rows do not decode: only the run finds it (charged, then refunded).
const undecodable = () => fileOf(pngWithUnknownFilter(), 'cut.png', 'image/png')
const rocket = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') // 640 × 427

async function ledgerRows(accountId: string) {
  return getDb().selectFrom('credit_transactions').select(['kind', 'delta', 'api_key_id']).where('account_id', '=', accountId).where('kind', 'in', ['consume', 'adjustment']).execute()
}

async function events(accountId: string) {
  const rows = await getDb()
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.event_type', 'd.payload'])
    .where('e.account_id', '=', accountId)
    .execute()
  return rows.map((r) => ({ type: r.event_type, data: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload).data }))
}

async function runsOf(accountId: string) {
  return getDb().selectFrom('tool_runs').select(['outcome', 'api_key_id']).where('account_id', '=', accountId).execute()
}

describe('test keys', () => {
  it('run the tool without any ledger row, cap the result at a quarter megapixel and say so', async () => {
    const caller = await keyedAccount('test')
    const answer = await run(caller.headers, rocket())
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(TEST_RESULT_MAX_PIXELS)
    expect(meta.width).toBeGreaterThan(500) // downscaled, not thumbnailed
    expect(await ledgerRows(caller.accountId)).toEqual([])
    expect(await runsOf(caller.accountId)).toEqual([{ outcome: 'success', api_key_id: caller.keyId }])
    const [event] = await events(caller.accountId)
    expect(event).toMatchObject({ type: 'job.succeeded', data: { tool: 'background-remover', status: 'succeeded', credits_charged: 0, error: null } })
  })

  it('see a broken file fail without a charge or a refund', async () => {
    const caller = await keyedAccount('test')
    const answer = await run(caller.headers, undecodable())
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    expect(await ledgerRows(caller.accountId)).toEqual([])
  })
})

describe('live keys', () => {
  it('are charged, say so in X-Credits-Charged, and the job ends as a webhook event', async () => {
    const caller = await keyedAccount('live')
    const answer = await run(caller.headers, rocket())
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Charged')).toBe('1')
    const meta = await sharp(Buffer.from(answer.body)).metadata()
    expect([meta.width, meta.height]).toEqual([640, 427])
    expect(await ledgerRows(caller.accountId)).toEqual([{ kind: 'consume', delta: -1, api_key_id: caller.keyId }])
    expect(await runsOf(caller.accountId)).toEqual([{ outcome: 'success', api_key_id: caller.keyId }])
    const [event] = await events(caller.accountId)
    expect(event!.type).toBe('job.succeeded')
    expect(event!.data).toEqual({
      id: expect.any(String),
      tool: 'background-remover',
      status: 'succeeded',
      // Absolute: a webhook is read on another host (on PUBLIC_URL).
      result_url: expect.stringMatching(/^https?:\/\/[^/]+\/api\/results\/[0-9a-f-]{36}$/),
      error: null,
      credits_charged: 1,
    })
  })

  it('refund a run that fails: 0 charged, and a job.failed event with the error', async () => {
    const caller = await keyedAccount('live')
    // Through the queue, charged at admission: a run short enough to go inline (decision 176) is charged only
    // with its outcome, so a failed one leaves no ledger row at all, and whether this small file's run is
    // short enough depends on the speed the server has measured (the machine's load).
    process.env.INLINE_RUN_MS = '0'
    resetConfigForTests()
    const answer = await run(caller.headers, undecodable()).finally(() => {
      delete process.env.INLINE_RUN_MS
      resetConfigForTests()
    })
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    const all = await events(caller.accountId)
    const ledger = await ledgerRows(caller.accountId)
    expect(ledger.map((r) => r.delta)).toEqual([-1, 1])
    expect(all).toEqual([{ type: 'job.failed', data: expect.objectContaining({ status: 'failed', credits_charged: 0, result_url: null, error: answer.body.error }) }])
  })
})

describe('POST /api/jobs/ reads its form with the tools’ own multipart reader', () => {
  it('accepts a quoted boundary and a `;` in the file name (RFC 7578), and still refuses a bad tool', async () => {
    const caller = await keyedAccount('test')
    const boundary = 'b;ound=ary'
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="tool"\r\n\r\nbackground-remover\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="shop; front.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      fixture('photos/noface-rocket.jpg'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
    const send = (payload: Buffer) =>
      postJob(routeArgs(new Request(`${BASE}/api/jobs/`, { method: 'POST', body: new Uint8Array(payload), headers: { ...caller.headers, 'content-type': `multipart/form-data; boundary="${boundary}"` } })))
    const accepted = await readResult(await send(body))
    expect(accepted.status).toBe(202)
    expect(accepted.headers.get('X-Credits-Charged')).toBe('0')
    const row = await getDb().selectFrom('tool_jobs').select(['original_name', 'test_mode', 'api_key_id']).where('id', '=', accepted.body.id).executeTakeFirstOrThrow()
    expect(row).toEqual({ original_name: 'shop; front.jpg', test_mode: true, api_key_id: caller.keyId })

    const wrongTool = await readResult(await send(Buffer.from(body.toString('latin1').replace('background-remover', 'nope'), 'latin1')))
    expect(wrongTool.status).toBe(400)
    expect(wrongTool.body.error).toMatch(/^tool must be one of/)
  })
})
