// Short runs inline (docs/decisions/176), on PGlite and PostgreSQL: a synchronous run expected to be
// short runs in the request with no pg-boss job, charged in its outcome's transaction, its job-end
// event heard and its metrics labelled path="inline"; a longer one goes through the queue; a failed
// inline run is charged nothing; a row left running with no pg-boss job is found by the sweep and
// failed unpaid, while a silent run that has a pg-boss job is left to pg-boss. (The real process killed
// mid-run is in processes.integration.test.ts, PostgreSQL only.)
import { randomUUID } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { charge, getBalance, grant } from '~/features/credits/ledger.server'
import { chargeRun } from '~/features/account/charge.server'
import { teamAccount } from '~/features/teams/membership.server'
import { createTeam } from '~/features/teams/teams.server'
import * as convertRoute from '~/routes/api.svg2image.convert'
import { startStudio } from '../../../tests/support/studio-server'
import { metricsText } from '~/features/observability/metrics.server'
import { stopBoss } from '~/features/queue/boss.server'
import { toolCost } from '~/features/tools/costs.server'
import { action as blur } from '~/routes/api.face-blur.blur'
import { action as convert } from '~/routes/api.svg2image.convert'
import { action as postJob } from '~/routes/api.jobs._index'
import {
  balanceOf,
  fileOf,
  fixture,
  fromEmptyQueueAndFreeSlot,
  ledgerSum,
  newUser,
  pngWithUnknownFilter,
  randomIp,
  toolRequest,
  type TestCaller,
} from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { INLINE_LOST_MESSAGE, sweepLostInlineRuns } from './inline.server'
import { findJob, insertJob, type ToolJobInfo } from './jobs.server'
import { subscribeToJobs } from './lifecycle.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'
import { JOB_TRACE_CHANNEL, type JobMark, type JobTraceMark } from './trace.server'

const marks = new Map<string, Set<JobMark>>()
const onMark = (message: unknown) => {
  const { jobId, mark } = message as JobTraceMark
  if (!marks.has(jobId)) marks.set(jobId, new Set())
  marks.get(jobId)!.add(mark)
}
/** Every job-end event heard in an outcome's transaction, as its subscribers (webhooks, batches) hear it. */
const endings = new Map<string, ToolJobInfo>()
/** An account whose whole balance is spent as its run starts (by another charge of the ledger). */
let drainAccount: string | null = null
/** Other spending as a run of this account starts (a team member's cap used by another run). */
const spendAtStart = new Map<string, () => Promise<void>>()

beforeAll(async () => {
  process.env.WORKER_CONCURRENCY = '1'
  process.env.INLINE_RUN_MS = '1000'
  resetConfigForTests()
  subscribe(JOB_TRACE_CHANNEL, onMark)
  subscribeToJobs({
    name: 'inline-test',
    ended: async (job) => void endings.set(job.id, job),
    starting: async (job) => {
      await spendAtStart.get(job.account_id)?.()
      if (job.account_id !== drainAccount) return undefined
      const balance = await getBalance(job.account_id)
      const spent = await charge({
        accountId: job.account_id,
        amount: balance,
        toolSlug: 'background_remover',
        idempotencyKey: `drain:${job.id}`,
      })
      if (!spent.ok) throw new Error('the balance was not spent')
      return undefined
    },
  })
  await fromEmptyQueueAndFreeSlot()
}, 180_000)

// A run is inline only with a slot of this process free: the last test's run may still hold it a moment.
beforeEach(async () => {
  await fromEmptyQueueAndFreeSlot()
}, 120_000)

/** Runs `test` with INLINE_RUN_MS at `ms`, then back to the file's 1000. */
async function withThreshold(ms: number, test: () => Promise<void>): Promise<void> {
  process.env.INLINE_RUN_MS = String(ms)
  resetConfigForTests()
  try {
    await test()
  } finally {
    process.env.INLINE_RUN_MS = '1000'
    resetConfigForTests()
  }
}

afterAll(async () => {
  unsubscribe(JOB_TRACE_CHANNEL, onMark)
  subscribeToJobs({ name: 'inline-test' })
  await stopBoss({ timeoutMs: 5_000 })
  delete process.env.WORKER_CONCURRENCY
  delete process.env.INLINE_RUN_MS
  resetConfigForTests()
})

const icon = () => fileOf(fixture('svg/tango-internet-web-browser.svg'), 'icon.svg', 'image/svg+xml')
const rocket = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

async function convertIcon(user: TestCaller) {
  const request = toolRequest('/api/svg2image/convert/', { svg: icon(), format: 'png', scale: '1' }, { 'x-facet-client-ip': randomIp(), ...user.headers })
  return readResult(await convert(routeArgs(request)))
}

async function onlyJobOf(accountId: string): Promise<ToolJobInfo> {
  const rows = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', accountId).execute()
  expect(rows).toHaveLength(1)
  return (await findJob(rows[0]!.id))!
}

async function pgBossJob(id: string) {
  const [job] = await (await toolQueues()).findJobs(TOOL_JOB_QUEUE, { id })
  return job ?? null
}

async function ledgerMatches(accountId: string): Promise<void> {
  const { balance, sum } = await ledgerSum(accountId)
  expect(sum).toBe(balance)
}

/** The value of one sample in the exposition text (0 when the series does not exist yet). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '))
  return line ? Number(line.slice(series.length + 1)) : 0
}

describe('short runs inline', () => {
  it('runs a short run in the request: no pg-boss job, charged once by its outcome, its end heard, path="inline"', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    const metricsBefore = (await metricsText()).body
    const answer = await convertIcon(user)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    const cost = toolCost('svg-converter')
    expect(answer.headers.get('x-credits-charged')).toBe(String(cost))
    // The balance the answer names is the one the outcome's charge left.
    expect(answer.headers.get('x-credits-remaining')).toBe(String(before - cost))
    const job = await onlyJobOf(user.accountId)
    expect(answer.headers.get('x-facet-job-id')).toBe(job.id)
    expect(job).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      refunded: false,
    })
    // Its charge is the one the outcome took, recorded on the job.
    expect(job.charge_transaction_id).not.toBeNull()
    const entry = await getDb().selectFrom('credit_transactions').selectAll().where('id', '=', job.charge_transaction_id!).executeTakeFirstOrThrow()
    expect(entry.delta).toBe(-cost)
    // No pg-boss job was ever sent: never fetched, never claimed by a worker.
    expect(await pgBossJob(job.id)).toBeNull()
    expect(marks.get(job.id)?.has('fetched')).toBe(false)
    expect(marks.get(job.id)?.has('recorded')).toBe(true)
    // Its job-end event was heard in the outcome's transaction (webhooks and batches subscribe to it).
    expect(endings.get(job.id)).toMatchObject({
      id: job.id,
      status: 'succeeded',
      charge_transaction_id: job.charge_transaction_id,
    })
    expect(await balanceOf(user)).toBe(before - cost)
    await ledgerMatches(user.accountId)
    const metricsAfter = (await metricsText()).body
    const delta = (series: string) => sample(metricsAfter, series) - sample(metricsBefore, series)
    expect(delta('facet_tool_runs_total{tool="svg-converter",model="resvg",outcome="success",path="inline"}')).toBe(1)
    expect(delta('facet_tool_runs_total{tool="svg-converter",model="resvg",outcome="success",path="queue"}')).toBe(0)
  }, 120_000)

  it('sends a run expected to be longer through the queue: a pg-boss job, charged at admission, path="queue"', async () => {
    // The blur's estimate (its seed: 400 ms and up) is over a 1 ms threshold; the icon's (not estimated) is not.
    await withThreshold(1, async () => {
      const user = await newUser()
      const before = await balanceOf(user)
      const metricsBefore = (await metricsText()).body
      const answer = await readResult(
        await blur(routeArgs(toolRequest('/api/face-blur/blur/', { image: rocket(), blur: '32' }, { 'x-facet-client-ip': randomIp(), ...user.headers })))
      )
      expect(answer.status).toBe(200)
      const job = await onlyJobOf(user.accountId)
      expect(job.status).toBe('succeeded')
      expect(await pgBossJob(job.id)).not.toBeNull()
      expect(endings.get(job.id)?.status).toBe('succeeded')
      const series = 'facet_tool_runs_total{tool="face-blurrer",model="yunet",outcome="no_face",path="queue"}'
      expect(sample((await metricsText()).body, series) - sample(metricsBefore, series)).toBe(1)
      // No face: charged at admission and refunded by the outcome, as ever.
      expect(job.refunded).toBe(true)
      expect(await balanceOf(user)).toBe(before)
      await ledgerMatches(user.accountId)
    })
  }, 120_000)

  it('charges nothing for an inline run that fails, and answers its failure', async () => {
    // Inline whatever speed this machine measured for the blur so far.
    await withThreshold(60_000, async () => {
      const user = await newUser()
      const before = await balanceOf(user)
      // A photo whose header and structure check (type, size, every byte there) but whose rows do not decode: it fails in its run.
      const cut = fileOf(pngWithUnknownFilter(), 'cut.png', 'image/png')
      const request = toolRequest('/api/face-blur/blur/', { image: cut, blur: '32' }, { 'x-facet-client-ip': randomIp(), ...user.headers })
      const answer = await readResult(await blur(routeArgs(request)))
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer.headers.get('x-credits-charged')).toBe('0')
      const rows = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', user.accountId).execute()
      expect(rows).toHaveLength(1)
      const job = (await findJob(rows[0]!.id))!
      expect(job).toMatchObject({
        status: 'failed',
        charge_transaction_id: null,
        result_id: null,
      })
      expect(await pgBossJob(job.id)).toBeNull()
      expect(endings.get(job.id)?.status).toBe('failed')
      expect(await balanceOf(user)).toBe(before)
      await ledgerMatches(user.accountId)
    })
  }, 120_000)

  it('an inline run whose account can no longer pay at its outcome is not delivered and not charged', async () => {
    const user = await newUser()
    drainAccount = user.accountId
    try {
      const answer = await convertIcon(user)
      // Admitted with the balance it had; spent elsewhere while it ran: the outcome's charge is refused.
      expect(answer.status).toBe(402)
      expect(answer.headers.get('x-credits-charged')).toBe('0')
      const job = await onlyJobOf(user.accountId)
      expect(job).toMatchObject({
        status: 'failed',
        charge_transaction_id: null,
        result_id: null,
        error_status: 402,
      })
      expect(endings.get(job.id)?.status).toBe('failed')
      expect(await balanceOf(user)).toBe(0)
      await ledgerMatches(user.accountId)
    } finally {
      drainAccount = null
    }
  }, 120_000)

  it('through the real HTTP path, an outcome charge refused for a balance or a cap spent meanwhile is a 402 with its words, never a 500', async () => {
    const studio = await startStudio({ 'api/svg2image/convert': convertRoute })
    const post = (caller: TestCaller, headers: Record<string, string> = {}) => {
      const form = new FormData()
      form.set('svg', icon())
      form.set('format', 'png')
      form.set('scale', '1')
      return fetch(`${studio.url}/api/svg2image/convert/`, { method: 'POST', headers: { authorization: caller.headers.authorization!, ...headers }, body: form })
    }
    try {
      const user = await newUser()
      drainAccount = user.accountId
      const drained = await post(user)
      drainAccount = null
      expect(drained.status, await drained.clone().text()).toBe(402)
      expect(drained.headers.get('x-credits-charged')).toBe('0')
      expect((await drained.json()).error).toMatch(/credit/i)
      expect(await balanceOf(user)).toBe(0)
      await ledgerMatches(user.accountId)

      // A capped team member: the door sees the cap unused; another run uses it while this one runs.
      const member = await newUser()
      const { user_id: memberId } = await getDb().selectFrom('credit_accounts').select('user_id').where('id', '=', member.accountId).executeTakeFirstOrThrow()
      const team = await createTeam(memberId!, `Inline ${randomUUID().slice(0, 6)}`)
      const teamAccountId = (await teamAccount(team.id))!.accountId
      await grant({ accountId: teamAccountId, amount: 20, kind: 'adjustment', description: 'Team budget' })
      const cost = toolCost('svg-converter')
      await getDb().updateTable('team_members').set({ monthly_cap: cost }).where('team_id', '=', team.id).where('user_id', '=', memberId!).execute()
      spendAtStart.set(teamAccountId, async () => {
        spendAtStart.delete(teamAccountId)
        const spent = await chargeRun({ accountId: teamAccountId, userId: memberId!, teamId: team.id, amount: cost, toolSlug: 'svg_converter', idempotencyKey: `cap:${randomUUID()}` }, getDb())
        if (!spent.ok) throw new Error('the cap was not used')
      })
      const capped = await post(member, { 'x-team': team.id })
      expect(capped.status, await capped.clone().text()).toBe(402)
      expect(capped.headers.get('x-credits-charged')).toBe('0')
      expect((await capped.json()).error).toMatch(/monthly cap/i)
      expect(await getBalance(teamAccountId)).toBe(20 - cost)
      await ledgerMatches(teamAccountId)
    } finally {
      drainAccount = null
      spendAtStart.clear()
      await studio.close()
    }
  }, 120_000)

  it('the sweep fails a silent running row that has no pg-boss job, unpaid, and leaves one pg-boss still holds', async () => {
    // A run through the queue that nobody runs (posted, then made to look silent): pg-boss holds its job.
    process.env.WORKER_CONCURRENCY = '0'
    resetConfigForTests()
    const user = await newUser()
    try {
      const posted = await readResult(
        await postJob(routeArgs(formRequest('/api/jobs/', { tool: 'face-blurrer', image: rocket(), blur: '32' }, { headers: user.headers })))
      )
      expect(posted.status, JSON.stringify(posted.body)).toBe(202)
      const held = posted.body.id as string
      // An inline run's row as its dead process left it: running, unpaid, no upload, no pg-boss job.
      const lost = randomUUID()
      await insertJob(
        {
          id: lost,
          accountId: user.accountId,
          tool: 'face-blurrer',
          options: {},
          originalName: 'lost.jpg',
          bytes: Buffer.from('x'),
          width: 10,
          height: 10,
          notes: [],
          idempotencyKey: null,
          fingerprint: 'x',
          chargeTransactionId: null,
          inline: { first: { percent: 5, message: 'Starting' } },
        },
        getDb()
      )
      const silent = sql<Date>`now() - interval '1 hour'`
      await getDb().updateTable('tool_jobs').set({ status: 'running', heartbeat_at: silent }).where('id', 'in', [held, lost]).execute()
      const before = await balanceOf(user)
      // Not silent for long enough by the default (the time limit and room for an outcome): nothing happens.
      await getDb()
        .updateTable('tool_jobs')
        .set({ heartbeat_at: sql<Date>`now()` })
        .where('id', '=', lost)
        .execute()
      await sweepLostInlineRuns()
      expect((await findJob(lost))?.status).toBe('running')
      await getDb().updateTable('tool_jobs').set({ heartbeat_at: silent }).where('id', '=', lost).execute()
      expect(await sweepLostInlineRuns()).toBeGreaterThanOrEqual(1)
      const ended = (await findJob(lost))!
      expect(ended).toMatchObject({
        status: 'failed',
        error: INLINE_LOST_MESSAGE,
        error_status: 503,
        charge_transaction_id: null,
      })
      expect(endings.get(lost)?.status).toBe('failed')
      // The queued run's pg-boss job is its net (pg-boss retries it): the sweep leaves it running.
      expect((await findJob(held))?.status).toBe('running')
      expect(await balanceOf(user)).toBe(before)
      await ledgerMatches(user.accountId)
    } finally {
      await (await toolQueues()).deleteQueuedJobs(TOOL_JOB_QUEUE)
      await getDb().deleteFrom('tool_jobs').where('account_id', '=', user.accountId).execute()
      process.env.WORKER_CONCURRENCY = '1'
      resetConfigForTests()
    }
  }, 120_000)
})
