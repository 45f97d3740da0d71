// Real processes on one PostgreSQL (a database of this test's own): this test process is the web-only
// process (WORKER_CONCURRENCY=0), workers are `scripts/worker.ts` child processes. A worker killed with
// SIGKILL mid-run loses nothing; SIGTERM drains; 20 jobs from 3 accounts over two workers are each
// delivered once and paid once. PostgreSQL only (PGlite allows one process per data folder).
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { createPostgresHandle, getDb, useDatabaseHandle, type DatabaseHandle } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
import { stopBoss } from '~/features/queue/boss.server'
import { toolCost } from '~/features/tools/costs.server'
import { findJob } from './jobs.server'
import { INLINE_LOST_MESSAGE, sweepLostInlineRuns } from './inline.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'
import { action as postJob } from '~/routes/api.jobs._index'
import { action as removeBg } from '~/routes/api.remove-bg'
import { balanceOf, fileOf, fixture, newUser, ledgerSum, type TestCaller } from '../../../tests/support/tools'
import { formRequest, readResult, routeArgs } from '../../../tests/support/requests'

const onPostgres = process.env.TEST_DB === 'postgres'
const database = `jobs_processes_${process.pid}_${Date.now()}`
const adminUrl = process.env.TEST_DATABASE_URL ?? ''
const url = adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}`)
const resultsKey = randomBytes(32).toString('hex')
// A killed process's run is handed on once its heartbeat lapses: 15 s rather than the default 30 halves
// the two kill tests' wait, and stays above a busy machine's longest event-loop stall.
const heartbeatSeconds = '15'
const children = new Set<ChildProcess>()
let handle: DatabaseHandle

/** A process of the studio's own on this test's database (one job at a time), killed at the end if alive. */
function startProcess(script: string, name: string, env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      RESULTS_KEY: resultsKey,
      WORKER_CONCURRENCY: '1',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATA_DIR: `tests/.tmp/${database}-${name}`,
      JOB_HEARTBEAT_SECONDS: heartbeatSeconds,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

const startWorker = (name: string) => startProcess('scripts/worker.ts', name)

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))))
}

async function enqueue(caller: TestCaller, tool: string, image: Blob, fields: Record<string, string> = {}): Promise<string> {
  const answer = await readResult(await postJob(routeArgs(formRequest('/api/jobs/', { tool, image, ...fields }, { headers: caller.headers }))))
  expect(answer.status).toBe(202)
  return answer.body.id
}

async function ledgerMatches(accountId: string): Promise<void> {
  const { balance, sum } = await ledgerSum(accountId)
  expect(sum).toBe(balance)
}

const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

describe.runIf(onPostgres)('jobs across real processes (PostgreSQL)', () => {
  beforeAll(async () => {
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
    await admin.db.destroy()
    process.env.WORKER_CONCURRENCY = '0'
    // The 20 jobs are queued faster than two workers take them.
    process.env.TOOL_QUEUE_LIMIT = '100'
    process.env.RESULTS_KEY = resultsKey
    process.env.JOB_HEARTBEAT_SECONDS = heartbeatSeconds
    resetConfigForTests()
    handle = createPostgresHandle(url, 5)
    await migrateToLatest(handle.db)
    useDatabaseHandle(handle)
  })

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    await stopBoss({ timeoutMs: 2_000 }).catch(() => {})
    await handle?.db.destroy()
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
    await admin.db.destroy()
  })

  it('a worker killed with SIGKILL mid-run: the job runs again on another worker, paid once', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    const first = startWorker('a')
    // The enhancer on a 640×427 photo runs for several seconds: time to kill it mid-run.
    const id = await enqueue(user, 'image-enhancer', photo())
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('running'), { timeout: 60_000, interval: 100 })
    first.kill('SIGKILL')
    await exited(first)
    expect((await findJob(id))?.status).toBe('running')
    startWorker('b')
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('succeeded'), { timeout: 120_000, interval: 250 })
    const job = (await findJob(id))!
    // Run again after the kill (a busy machine may add a retry; the outcome is still written once).
    expect(job.attempts).toBeGreaterThanOrEqual(2)
    expect(job.refunded).toBe(false)
    expect(await balanceOf(user)).toBe(balance - 2)
    await ledgerMatches(user.accountId)
  }, 180_000)

  it('20 jobs from 3 accounts over two workers: each delivered once, charges equal deliveries', async () => {
    startWorker('c')
    const callers = [await newUser(), await newUser(), await newUser()]
    const before = await Promise.all(callers.map(balanceOf))
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push(await enqueue(callers[i % 3]!, 'background-remover', photo()))
    await vi.waitFor(
      async () => {
        const open = await getDb().selectFrom('tool_jobs').select('id').where('id', 'in', ids).where('status', 'in', ['queued', 'running']).execute()
        expect(open).toEqual([])
      },
      { timeout: 150_000, interval: 500 },
    )
    const jobs = await getDb().selectFrom('tool_jobs').select(['id', 'status', 'account_id', 'result_id']).where('id', 'in', ids).execute()
    expect(jobs.filter((j) => j.status === 'succeeded' && j.result_id)).toHaveLength(20)
    for (const [i, caller] of callers.entries()) {
      const mine = jobs.filter((j) => j.account_id === caller.accountId).length
      const charges = await getDb()
        .selectFrom('credit_transactions')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('account_id', '=', caller.accountId)
        .where('kind', '=', 'consume')
        .executeTakeFirstOrThrow()
      expect(charges.n).toBe(mine)
      expect(await balanceOf(caller)).toBe(before[i]! - mine)
      await ledgerMatches(caller.accountId)
    }
  }, 200_000)

  it('a spec endpoint in the web-only process answers a run that a worker process did (no in-process event)', async () => {
    if (children.size === 0) startWorker('e')
    const user = await newUser()
    const balance = await balanceOf(user)
    const answer = await readResult(await removeBg(routeArgs(formRequest('/api/remove-bg/', { image: photo() }, { headers: user.headers }))))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    expect(answer.headers.get('X-Credits-Charged')).toBe('1')
    // The bytes came from the results store (the worker was another process): a whole PNG.
    const bytes = Buffer.from(answer.body as ArrayBuffer)
    expect(bytes.subarray(1, 4).toString()).toBe('PNG')
    expect(Number(answer.headers.get('Content-Length'))).toBe(bytes.byteLength)
    expect(await balanceOf(user)).toBe(balance - 1)
  }, 120_000)

  it('a web process killed with SIGKILL while it runs a synchronous run taken where it was admitted: a worker runs it again, paid once', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    // A web + worker process of its own sends the enhancer's run to its spec endpoint and runs it itself.
    const web = startProcess('tests/support/sync-run-child.ts', 'web', { SYNC_TOKEN: user.token, INLINE_RUN_MS: '0' })
    const mine = () => getDb().selectFrom('tool_jobs').select(['id', 'status', 'attempts']).where('account_id', '=', user.accountId).executeTakeFirst()
    await vi.waitFor(async () => expect((await mine())?.status).toBe('running'), { timeout: 120_000, interval: 100 })
    const id = (await mine())!.id
    web.kill('SIGKILL')
    await exited(web)
    // The run was this process's: its pg-boss job stops getting heartbeats, and pg-boss retries it.
    if (children.size === 0) startWorker('f')
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('succeeded'), { timeout: 240_000, interval: 500 })
    const job = (await findJob(id))!
    expect(job.attempts).toBeGreaterThanOrEqual(2)
    expect(job.refunded).toBe(false)
    expect(await balanceOf(user)).toBe(balance - toolCost('image-enhancer'))
    await ledgerMatches(user.accountId)
  }, 300_000)

  it('a web process killed with SIGKILL during an inline run: nothing charged, and another process sweeps the row to failed', async () => {
    const user = await newUser()
    const balance = await balanceOf(user)
    // The enhancer's synchronous run, inline whatever its estimate (decision 176; this file's earlier runs on a busy
    // machine may have measured it slow): several seconds in the child's request.
    const web = startProcess('tests/support/sync-run-child.ts', 'inline', { SYNC_TOKEN: user.token, INLINE_RUN_MS: '3600000' })
    const mine = () => getDb().selectFrom('tool_jobs').select(['id', 'status']).where('account_id', '=', user.accountId).executeTakeFirst()
    await vi.waitFor(async () => expect((await mine())?.status).toBe('running'), { timeout: 120_000, interval: 100 })
    const id = (await mine())!.id
    // Inline: no pg-boss job to hand it on, and no charge until its outcome.
    const boss = await toolQueues()
    expect(await boss.findJobs(TOOL_JOB_QUEUE, { id })).toHaveLength(0)
    expect((await findJob(id))?.charge_transaction_id).toBeNull()
    web.kill('SIGKILL')
    await exited(web)
    expect((await findJob(id))?.status).toBe('running')
    // Silent for less than the time limit (and the room for an outcome): a live run, left alone.
    expect(await sweepLostInlineRuns()).toBe(0)
    // Silent past it (shortened here to a second: the process is known dead), any process's sweep ends it, once.
    await vi.waitFor(
      async () => {
        await sweepLostInlineRuns(1_000)
        expect((await findJob(id))?.status).toBe('failed')
      },
      { timeout: 60_000, interval: 500 },
    )
    const job = (await findJob(id))!
    expect(job).toMatchObject({ error: INLINE_LOST_MESSAGE, charge_transaction_id: null, result_id: null })
    expect(await sweepLostInlineRuns(1_000)).toBe(0)
    expect(await balanceOf(user)).toBe(balance)
    await ledgerMatches(user.accountId)
  }, 300_000)

  it('SIGTERM drains: the running job finishes before the worker exits', async () => {
    for (const child of children) {
      child.kill('SIGTERM')
      await exited(child)
    }
    const worker = startWorker('d')
    const user = await newUser()
    // The remover's run (about a second) fits the 20 s drain.
    const id = await enqueue(user, 'background-remover', photo())
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('running'), { timeout: 60_000, interval: 100 })
    worker.kill('SIGTERM')
    expect(await exited(worker)).toBe(0)
    expect((await findJob(id))?.status).toBe('succeeded')
  }, 120_000)
})
