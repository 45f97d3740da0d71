// The wall clock stepping forward and back mid-run (docs/decisions/177). Which clock each rule reads:
// - the database's now(): a job's started/heartbeat/finished stamps, the sweep of lost inline runs, pg-boss's
//   heartbeats and expiry. On PostgreSQL that is the server's clock; on PGlite it is this process's own
//   (PGlite reads the time through JavaScript's Date), so there a step moves the database's clock too;
// - the monotonic clock (setTimeout, performance.now()): a run's time limit, the synchronous request's wait,
//   the progress throttle and check-in, the drain's deadline;
// - the process's wall clock (Date): a result's stored/expiry stamps, signed result links, daily allowances.
// Two ways to step it, each where it is honest:
// - in this process, Date faked by vitest (timers left real, as a real step leaves the monotonic clock),
//   which PGlite's now() follows as it follows a real step: a forward step while this process's own inline
//   run is live must not make the sweep end it (it did on PGlite), and the run is delivered, charged once;
// - in real child processes, libfaketime (LD_PRELOAD) steps CLOCK_REALTIME only (FAKETIME_DONT_FAKE_MONOTONIC,
//   as NTP or a resumed VM does), read from a file the test rewrites: a worker's clock stepped +2 h and back
//   mid-run, and a web process 2 h ahead of the database, whose synchronous run used to be stopped at once as
//   "too long" (its wait was measured from the database's created_at with its own clock). PostgreSQL only:
//   several processes share the database. Skipped, saying so, without libfaketime.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { createPostgresHandle, getDb, useDatabaseHandle, type DatabaseHandle } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
import { stopBoss } from '~/features/queue/boss.server'
import { toolCost } from '~/features/tools/costs.server'
import { action as scale } from '~/routes/api.image-scaler.scale'
import { action as postJob } from '~/routes/api.jobs._index'
import { balanceOf, fileOf, fixture, ledgerSum, newUser, type TestCaller } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { StudioChildren, exited } from '../../../tests/support/child-processes'
import { sweepLostInlineRuns } from './inline.server'
import { findJob } from './jobs.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'

const onPostgres = process.env.TEST_DB === 'postgres'
const HOUR = 3_600_000
const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

async function consumeCount(accountId: string): Promise<number> {
  const row = await getDb()
    .selectFrom('credit_transactions')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'consume')
    .executeTakeFirstOrThrow()
  return row.n
}

async function ledgerMatches(accountId: string): Promise<void> {
  const { balance, sum } = await ledgerSum(accountId)
  expect(sum).toBe(balance)
}

describe('the wall clock stepped in this process (Date faked, timers real)', () => {
  const saved = { ...process.env }
  beforeAll(() => {
    process.env.WORKER_CONCURRENCY = '1'
    // The enhancer's run (seconds) inline whatever its estimate: time to step the clock while it is live.
    process.env.INLINE_RUN_MS = '3600000'
    // Not its time limit on a busy machine (minutes at a load of 25 on two cores).
    process.env.TOOL_TIMEOUT_MS = '900000'
    process.env.JOB_HEARTBEAT_SECONDS = '15'
    resetConfigForTests()
  })
  afterEach(() => vi.useRealTimers())
  afterAll(async () => {
    process.env = saved
    resetConfigForTests()
    await stopBoss({ timeoutMs: 5_000 }).catch(() => {})
  })

  it('+3 h then back: the sweep leaves the live run, which is delivered and charged once', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const answering = scale(routeArgs(formRequest('/api/image-scaler/scale/', { image: photo() }, { headers: user.headers })))
    const mine = () => getDb().selectFrom('tool_jobs').select(['id', 'status', 'charge_transaction_id']).where('account_id', '=', user.accountId).executeTakeFirst()
    await vi.waitFor(async () => expect((await mine())?.status).toBe('running'), { timeout: 600_000, interval: 50 })
    const id = (await mine())!.id
    // Inline: no pg-boss job, not charged yet. The sweep's net is only the database's clock and this process's knowledge.
    expect(await (await toolQueues()).findJobs(TOOL_JOB_QUEUE, { id })).toHaveLength(0)
    expect((await mine())?.charge_transaction_id).toBeNull()

    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
    vi.setSystemTime(Date.now() + 3 * HOUR)
    const { rows } = await sql<{ ahead: boolean }>`select now() > ${new Date(Date.now() - HOUR)}::timestamptz as ahead`.execute(getDb())
    // PGlite's clock is this process's: it stepped too (PostgreSQL's did not).
    expect(rows[0]!.ahead).toBe(!onPostgres)
    expect(await sweepLostInlineRuns()).toBe(0)
    expect((await findJob(id))?.status).toBe('running')
    // And back (a backward step of 3 h), still mid-run.
    vi.useRealTimers()
    expect(await sweepLostInlineRuns()).toBe(0)
    expect((await findJob(id))?.status).toBe('running')

    const answer = await readResult(await answering)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Credits-Charged')).toBe(String(toolCost('image-enhancer')))
    expect(await findJob(id)).toMatchObject({ status: 'succeeded', attempts: 1, refunded: false })
    expect(await consumeCount(user.accountId)).toBe(1)
    expect(await balanceOf(user)).toBe(balance - toolCost('image-enhancer'))
    await ledgerMatches(user.accountId)
  }, 900_000)

  it('+2 h mid-run: delivered on its first attempt, charged once (on PGlite pg-boss, whose clock stepped too, may take the claim away: the run goes on)', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const posted = await readResult(await postJob(routeArgs(formRequest('/api/jobs/', { tool: 'image-enhancer', image: photo() }, { headers: user.headers }))))
    expect(posted.status).toBe(202)
    const id = posted.body.id as string
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('running'), { timeout: 600_000, interval: 50 })
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
    vi.setSystemTime(Date.now() + 2 * HOUR)
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('succeeded'), { timeout: 600_000, interval: 250 })
    // Back to the real time before reading the balance: read 2 h ahead past UTC midnight, it would be the next
    // day's, topped up by the daily refresh (as it should be), and the charge would not show in it.
    vi.useRealTimers()
    const job = (await findJob(id))!
    expect(job.refunded).toBe(false)
    // PostgreSQL's clock did not move: pg-boss saw the heartbeats in time. PGlite's did: its supervision may
    // take the job for lost and hand it out again, but the live run goes on and the retry finds it ended
    // (docs/decisions/194; it used to be stopped and run again, attempts 2). One attempt either way.
    expect(job.attempts).toBe(1)
    expect(await consumeCount(user.accountId)).toBe(1)
    expect(await balanceOf(user)).toBe(balance - toolCost('image-enhancer'))
    await ledgerMatches(user.accountId)
    console.info(`clock +2 h mid-run on ${onPostgres ? 'PostgreSQL' : 'PGlite'}: attempts ${job.attempts}`)
  }, 900_000)
})

const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find(existsSync)

describe.runIf(onPostgres && LIBFAKETIME)('the wall clock stepped in real processes (libfaketime, PostgreSQL)', () => {
  const database = `faults_clock_${process.pid}_${Date.now()}`
  const adminUrl = process.env.TEST_DATABASE_URL ?? ''
  const url = adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}`)
  const resultsKey = randomBytes(32).toString('hex')
  let clockDir = ''
  const children = new StudioChildren(() => ({
    DATABASE_URL: url,
    RESULTS_KEY: resultsKey,
    WORKER_CONCURRENCY: '1',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATA_DIR: `tests/.tmp/${database}`,
    JOB_HEARTBEAT_SECONDS: '15',
    // The enhancer's run must not meet its time limit on a busy machine (minutes at a load of 25 on two cores).
    TOOL_TIMEOUT_MS: '900000',
  }))
  /** A process whose wall clock is the real one shifted by the offset in `file` ("+2h", "+0"), read at every call. */
  const steppedClock = (file: string, offset: string) => {
    writeFileSync(file, `${offset}\n`)
    return {
      env: { LD_PRELOAD: LIBFAKETIME!, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
      step: (to: string) => writeFileSync(file, `${to}\n`),
    }
  }
  let handle: DatabaseHandle

  async function enqueue(caller: TestCaller): Promise<string> {
    const answer = await readResult(await postJob(routeArgs(formRequest('/api/jobs/', { tool: 'image-enhancer', image: photo() }, { headers: caller.headers }))))
    expect(answer.status).toBe(202)
    return answer.body.id
  }

  /** When the worker stored the job's result, by its own wall clock (results.created_at is written from Date). */
  async function storedAt(jobId: string): Promise<number> {
    const row = await getDb().selectFrom('tool_jobs').innerJoin('results', 'results.id', 'tool_jobs.result_id').select('results.created_at').where('tool_jobs.id', '=', jobId).executeTakeFirstOrThrow()
    return new Date(row.created_at).getTime()
  }

  beforeAll(async () => {
    clockDir = mkdtempSync(path.join(os.tmpdir(), 'facet-faults-clock-'))
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
    await admin.db.destroy()
    process.env.WORKER_CONCURRENCY = '0'
    process.env.RESULTS_KEY = resultsKey
    process.env.JOB_HEARTBEAT_SECONDS = '15'
    process.env.TOOL_TIMEOUT_MS = '900000'
    resetConfigForTests()
    handle = createPostgresHandle(url, 5)
    await migrateToLatest(handle.db)
    useDatabaseHandle(handle)
  }, 120_000)

  afterAll(async () => {
    await children.killAll()
    await stopBoss({ timeoutMs: 2_000 }).catch(() => {})
    await handle?.db.destroy()
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
    await admin.db.destroy()
    if (clockDir) rmSync(clockDir, { recursive: true, force: true })
    rmSync(`tests/.tmp/${database}`, { recursive: true, force: true })
  }, 120_000)

  it("a worker's clock stepped +2 h mid-run, and back mid-run of the next: each delivered once, on its first attempt, charged once", async () => {
    const clock = steppedClock(path.join(clockDir, 'worker'), '+0')
    children.start('scripts/worker.ts', 'clock-worker', {}, clock)
    const user = await newUser()
    const balance = await balanceOf(user)

    const first = await enqueue(user)
    await vi.waitFor(async () => expect((await findJob(first))?.status).toBe('running'), { timeout: 600_000, interval: 100 })
    clock.step('+2h')
    await vi.waitFor(async () => expect((await findJob(first))?.status).toBe('succeeded'), { timeout: 900_000, interval: 250 })
    // The step was in force when the worker stored the result (its own clock, 2 h ahead of this one).
    expect(await storedAt(first)).toBeGreaterThan(Date.now() + HOUR)

    const second = await enqueue(user)
    await vi.waitFor(async () => expect((await findJob(second))?.status).toBe('running'), { timeout: 600_000, interval: 100 })
    clock.step('+0')
    await vi.waitFor(async () => expect((await findJob(second))?.status).toBe('succeeded'), { timeout: 900_000, interval: 250 })
    expect(await storedAt(second)).toBeLessThan(Date.now() + HOUR)

    for (const id of [first, second]) expect(await findJob(id)).toMatchObject({ attempts: 1, refunded: false })
    expect(await consumeCount(user.accountId)).toBe(2)
    expect(await balanceOf(user)).toBe(balance - 2 * toolCost('image-enhancer'))
    await ledgerMatches(user.accountId)
  }, 2_000_000)

  it('a web process 2 h ahead of the database: its synchronous run is answered (200), charged once, not stopped as too long', async () => {
    if (children.count === 0) children.start('scripts/worker.ts', 'worker-real-clock')
    const user = await newUser()
    const balance = await balanceOf(user)
    // Web only (the worker process runs it) and through the queue: the request waits for the job's end.
    const clock = steppedClock(path.join(clockDir, 'web'), '+2h')
    const web = children.start('tests/support/sync-run-child.ts', 'web-ahead', { SYNC_TOKEN: user.token, WORKER_CONCURRENCY: '0', INLINE_RUN_MS: '0' }, clock)
    expect(await exited(web)).toEqual({ code: 0, signal: null })
    const answered = web.lines.map((line) => line.trim()).find((line) => line.startsWith('{"status"'))
    expect(JSON.parse(answered ?? '{}')).toEqual({ status: 200 })
    const job = await getDb().selectFrom('tool_jobs').select(['id', 'status', 'attempts', 'refunded']).where('account_id', '=', user.accountId).executeTakeFirstOrThrow()
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, refunded: false })
    expect(await consumeCount(user.accountId)).toBe(1)
    expect(await balanceOf(user)).toBe(balance - toolCost('image-enhancer'))
    await ledgerMatches(user.accountId)
  }, 1_500_000)
})

// Declared only when it applies: a describe.runIf(false) would still list its placeholder as skipped, with a
// title that says libfaketime is missing where it is not.
if (onPostgres && !LIBFAKETIME) {
  describe('the wall clock stepped in real processes: skipped, libfaketime is not installed (apt-get install faketime)', () => {
    it.skip('needs libfaketime', () => {})
  })
}
