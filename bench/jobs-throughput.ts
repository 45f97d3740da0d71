// Runs per minute with W worker processes on one machine and one PostgreSQL (a database of its own,
// dropped after): this process is web only (WORKER_CONCURRENCY=0) and enqueues JOBS background-remover
// runs at about 1 MP through POST /api/jobs/; W `scripts/worker.ts` processes (one job at a time each)
// take them. Prints one JSON line. Started by bench/jobs.ts once per W.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { resetConfigForTests } from '../app/config.server'
import { createPostgresHandle, getDb, useDatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import { resolveCaller } from '../app/features/account/caller.server'
import { grant } from '../app/features/credits/ledger.server'
import { stopBoss } from '../app/features/queue/boss.server'
import { submitJob } from '../app/features/tools/jobs-api.server'
import { onePhoto } from './jobs-photo'

const WORKERS = Number(process.argv[2] ?? 1)
const JOBS = Number(process.env.BENCH_JOBS ?? 12)
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const database = process.argv[3] ?? `bench_jobs_${process.pid}`
const url = adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}`)
const resultsKey = randomBytes(32).toString('hex')

const admin = createPostgresHandle(adminUrl, 1)
await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
Object.assign(process.env, { WORKER_CONCURRENCY: '0', RESULTS_KEY: resultsKey, TOOL_QUEUE_LIMIT: '1000', RATE_LIMITS: 'false', LOG_LEVEL: 'warn' })
resetConfigForTests()
const handle = createPostgresHandle(url, 5)
await migrateToLatest(handle.db)
useDatabaseHandle(handle)
const children: ChildProcess[] = []
try {
  const env = { ...process.env, DATABASE_URL: url, RESULTS_KEY: resultsKey, WORKER_CONCURRENCY: '1', NODE_ENV: 'production' as const, LOG_LEVEL: 'warn' }
  for (let i = 0; i < WORKERS; i++) {
    children.push(spawn(process.execPath, ['--import', 'tsx', 'scripts/worker.ts'], { env: { ...env, DATA_DIR: `data/${database}-${i}` }, stdio: 'ignore' }))
  }
  const headers = { 'x-facet-client-ip': '10.8.8.8' }
  const visitor = await resolveCaller(new Request('http://localhost/', { headers }))
  if (visitor.kind !== 'caller' || !visitor.setCookie) throw new Error('no visitor')
  await grant({ accountId: visitor.caller.accountId, amount: JOBS + 10, kind: 'adjustment', description: 'bench' })
  const cookie = visitor.setCookie.split(';')[0]!
  const bytes = await onePhoto()
  const ended = async () =>
    (await getDb().selectFrom('tool_jobs').select(sql<number>`count(*)::int`.as('n')).where('status', 'in', ['succeeded', 'failed']).executeTakeFirstOrThrow()).n
  // A first job warms every worker's model (not timed): wait until the workers are up and one ran.
  const send = async () => {
    const form = new FormData()
    form.append('tool', 'background-remover')
    form.append('image', new File([new Uint8Array(bytes)], 'photo.jpg', { type: 'image/jpeg' }))
    const answer = await submitJob(new Request('http://localhost/api/jobs/', { method: 'POST', body: form, headers: { ...headers, cookie } }))
    if (answer.status !== 202) throw new Error(`enqueue failed: ${answer.status} ${await answer.text()}`)
  }
  for (let i = 0; i < WORKERS; i++) await send()
  while ((await ended()) < WORKERS) await new Promise((r) => setTimeout(r, 100))
  const started = performance.now()
  for (let i = 0; i < JOBS; i++) await send()
  while ((await ended()) < WORKERS + JOBS) await new Promise((r) => setTimeout(r, 50))
  const seconds = (performance.now() - started) / 1000
  console.log(JSON.stringify({ workers: WORKERS, jobs: JOBS, seconds: Math.round(seconds * 10) / 10, runsPerMinute: Math.round((JOBS / seconds) * 60 * 10) / 10 }))
} finally {
  for (const child of children) child.kill('SIGTERM')
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))))
  await stopBoss({ timeoutMs: 2_000 })
  await handle.db.destroy()
  await admin.db.destroy()
}
// The database is dropped by bench/jobs.ts once this process (and every pool in it) is gone.
process.exit(0)
