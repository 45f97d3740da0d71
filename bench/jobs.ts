// Tool runs through the queue against a direct call: the background remover on a photo resized to
// about 1 MP, N runs each way, one after another, in one process (web + worker; PGlite in memory, or
// PostgreSQL when DATABASE_URL is set: a schema of the run's own in that database, dropped after).
// Through the queue is the whole path a spec endpoint takes (parse, charge + job in one transaction,
// worker claim, run, outcome with the stored result, the answer); direct is the runner alone. The
// queued runs' stages (jobs/trace.server.ts) are printed as medians: where the added time goes.
// Then runs per minute with one worker process against two (bench/jobs-throughput.ts, PostgreSQL;
// BENCH_THROUGHPUT=0 skips it).
import { execFileSync } from 'node:child_process'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { PGlite } from '@electric-sql/pglite'
import { resetConfigForTests } from '../app/config.server'
import { sql } from 'kysely'
import { createPGliteHandle, createPostgresHandle, pgliteOptions, useDatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
// Features' subscriptions to each other's events, as in every process that ends jobs (decision 118).
import '../app/features/wiring.server'
import { resolveCaller } from '../app/features/account/caller.server'
import { grant } from '../app/features/credits/ledger.server'
import { stopBoss } from '../app/features/queue/boss.server'
import { runToolSubmission } from '../app/features/tools/submit.server'
import { JOB_MARKS, JOB_TRACE_CHANNEL, type JobTraceMark } from '../app/features/jobs/trace.server'
import { runnerFor } from '../app/features/tools/runners/index.server'
import { onePhoto } from './jobs-photo'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}


export async function benchJobs() {
  process.env.RATE_LIMITS = 'false'
  process.env.TOOL_QUEUE_LIMIT = '1000'
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
  resetConfigForTests()
  const postgresUrl = process.env.DATABASE_URL
  const schema = `bench_latency_${process.pid}`
  if (postgresUrl) {
    const admin = createPostgresHandle(postgresUrl, 1)
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(admin.db)
    await admin.db.destroy()
  }
  const handle = postgresUrl ? createPostgresHandle(postgresUrl, 10, schema) : createPGliteHandle(new PGlite(pgliteOptions()))
  await migrateToLatest(handle.db, postgresUrl ? { schema } : undefined)
  useDatabaseHandle(handle)
  const marks = new Map<string, Map<string, number>>()
  const onMark = (message: unknown) => {
    const { jobId, mark, at } = message as JobTraceMark
    if (!marks.has(jobId)) marks.set(jobId, new Map())
    marks.get(jobId)!.set(mark, at)
  }
  subscribe(JOB_TRACE_CHANNEL, onMark)
  const bytes = await onePhoto()
  const runner = runnerFor('background-remover')
  const options = await runner.parseOptions({})

  const headers = { 'x-facet-client-ip': '10.9.9.9' }
  const visitor = await resolveCaller(new Request('http://localhost/', { headers }))
  if (visitor.kind !== 'caller' || !visitor.setCookie) throw new Error('no visitor')
  await grant({ accountId: visitor.caller.accountId, amount: RUNS * 2 + 10, kind: 'adjustment', description: 'bench' })
  const cookie = visitor.setCookie.split(';')[0]!
  const throughQueue = async () => {
    const form = new FormData()
    form.append('image', new File([new Uint8Array(bytes)], 'photo.jpg', { type: 'image/jpeg' }))
    const request = new Request('http://localhost/api/remove-bg/', { method: 'POST', body: form, headers: { ...headers, cookie } })
    const answer = await runToolSubmission(request, 'background-remover')
    if (!answer.ok) throw new Error(`run failed: ${answer.error}`)
    return answer.jobId
  }
  const directly = () => runner.run({ bytes, options, signal: new AbortController().signal, progress: () => {} })
  // Warm-up (model load, pg-boss start), then the two ways alternate so a busy machine slows both alike.
  await directly()
  await throughQueue()
  marks.clear()
  const direct: number[] = []
  const queued: number[] = []
  // Per queued run, the runner's own time inside the queue (claimed → ran) and everything else: the
  // queue's own cost, free of the run's variance on a shared machine.
  const runInQueue: number[] = []
  const queueOwn: number[] = []
  for (let i = 0; i < RUNS; i++) {
    let started = performance.now()
    await directly()
    direct.push(performance.now() - started)
    started = performance.now()
    const jobId = await throughQueue()
    const took = performance.now() - started
    queued.push(took)
    const job = marks.get(jobId)
    const ran = job?.get('ran')
    const claimed = job?.get('claimed')
    if (ran !== undefined && claimed !== undefined) {
      runInQueue.push(ran - claimed)
      queueOwn.push(took - (ran - claimed))
    }
  }
  await stopBoss({ timeoutMs: 5_000 })
  unsubscribe(JOB_TRACE_CHANNEL, onMark)
  await handle.db.destroy()
  if (postgresUrl) {
    const admin = createPostgresHandle(postgresUrl, 1)
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(admin.db)
    await sql`DROP SCHEMA IF EXISTS ${sql.id(`${schema}_boss`)} CASCADE`.execute(admin.db)
    await admin.db.destroy()
  }

  const figures = {
    database: postgresUrl ? 'postgres' : 'pglite',
    runs: RUNS,
    megapixels: 1.0,
    directP50Ms: Math.round(percentile(direct, 50)),
    directP95Ms: Math.round(percentile(direct, 95)),
    queuedP50Ms: Math.round(percentile(queued, 50)),
    queuedP95Ms: Math.round(percentile(queued, 95)),
    addedP50Ms: Math.round(percentile(queued, 50) - percentile(direct, 50)),
    addedP95Ms: Math.round(percentile(queued, 95) - percentile(direct, 95)),
    ...(queueOwn.length
      ? {
          runInQueueP50Ms: Math.round(percentile(runInQueue, 50)),
          queueOwnP50Ms: Math.round(percentile(queueOwn, 50)),
          queueOwnP95Ms: Math.round(percentile(queueOwn, 95)),
        }
      : {}),
  }
  console.table([figures])
  const stages = stageMedians(marks)
  if (stages.length) console.table(stages)
  if (process.env.BENCH_THROUGHPUT === '0') return { ...figures, stages }
  // Whole processes on PostgreSQL, one after the other.
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const throughput = []
  for (const workers of [1, 2]) {
    const database = `bench_jobs_${process.pid}_${workers}`
    try {
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/jobs-throughput.ts', String(workers), database], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      throughput.push(JSON.parse(out.trim().split('\n').pop()!) as { workers: number; jobs: number; seconds: number; runsPerMinute: number })
    } finally {
      const admin = createPostgresHandle(adminUrl, 1)
      await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
      await admin.db.destroy()
    }
  }
  console.table(throughput)
  return { ...figures, stages, throughput }
}

/** Each stage of the queued runs (the time from the previous mark to its own): median and p95, ms. */
function stageMedians(marks: Map<string, Map<string, number>>) {
  const durations = new Map<string, number[]>()
  for (const job of marks.values()) {
    let previous: number | undefined
    for (const mark of JOB_MARKS) {
      const at = job.get(mark)
      if (at === undefined) continue
      if (previous !== undefined) durations.set(mark, [...(durations.get(mark) ?? []), at - previous])
      previous = at
    }
  }
  return [...durations].map(([stage, values]) => ({
    stage: `→ ${stage}`,
    p50Ms: Math.round(percentile(values, 50) * 10) / 10,
    p95Ms: Math.round(percentile(values, 95) * 10) / 10,
  }))
}
