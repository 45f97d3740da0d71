// The soak (issue 34, item 8; docs/decisions/178): a real studio on PostgreSQL — one web process
// (`server.ts`) and two worker processes (`scripts/worker.ts`), started as `npm start` and
// `npm run worker` start them — under a steady arrival rate of mixed runs for N minutes, from several
// API-key accounts and cookie visitors, over loopback. Reports per tool and path (synchronous inline,
// synchronous through the queue, the jobs API) count, p50, p99, max and errors by status; refusals by
// kind (a visitor's spent daily credits, 402, is a correct answer); every process's resident memory
// sampled every few seconds with its slope after the warm-up and over the second half; and at the end
// the ledger: every balance equals the sum of its ledger, every delivered job charged once, no failed
// run charged, nothing left queued or running.
//   npm run bench -- soak [--minutes 10] [--rate 0.1] [--web-slots 1] [--accounts 4] [--visitors 6] [--allocator glibc]
// The processes run on the allocator the image ships (jemalloc preloaded, libvips on one thread: decision 198)
// when this machine has libjemalloc2; `--allocator glibc` runs them on glibc's, to compare.
// The load is an open model: arrival i is sent at start + i / rate whatever the answers before it, so
// a slow studio meets more work in flight instead of a kinder client. A small driver on fetch rather
// than autocannon: every arrival is a different multipart upload (tool, size, caller, path) and a jobs
// run is a POST followed by polling, which autocannon's fixed requests do not express.
// PostgreSQL is BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test:
// a database soak_<pid> is created there and dropped at the end.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { TOOLS, type ToolSlug } from '../app/catalog/tools'
import { resetConfigForTests } from '../app/config.server'
import { createPostgresHandle, useDatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import { createApiKey } from '../app/features/api-keys/keys.server'
import { ensureUserAccount, grant } from '../app/features/credits/ledger.server'
import { buildForBench } from './http'
import { checkLedger, classifyAnswer, latencyFigures, memoryTrend, type Caller, type MemorySample, type MemoryTrend } from './soak-figures'
import { soakCases, type SoakCase } from './soak-mix'
import { freePort, processTree, runAsScript, statusKb } from './support'

const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

export interface SoakSettings {
  minutes: number
  /** Runs sent per second. */
  rate: number
  /** WORKER_CONCURRENCY of the web process: 1 lets it run short synchronous runs inline (decision 176). */
  webSlots: number
  accounts: number
  visitors: number
  /** Share of arrivals sent through POST /api/jobs/ (the rest to the synchronous endpoints). */
  jobsShare: number
  /** Share of arrivals from visitors (the rest from API-key accounts). */
  visitorShare: number
  seed: number
  /** The processes' allocator: the image's (jemalloc, decision 198) or glibc's. */
  allocator: 'jemalloc' | 'glibc'
}

/**
 * The default rate, measured here (2 shared cores, load average near 50 from other work; decision
 * 178): at 0.25 runs/s the mix's runs took 24 s each on average in a slot and the queue overflowed
 * (503s, runs stopped at their time limit); at 0.08 runs/s they took 11 s, so the three run slots
 * (two workers and the web's one) keep up with about 0.27 runs/s there. 0.1 runs/s is about a third of
 * that: room for the load to vary. The report gives the slots' busy share and the mean run to check it.
 */
export const DEFAULT_RATE = 0.1

export function soakSettings(argv: string[]): SoakSettings {
  const value = (name: string, fallback: number) => {
    const at = argv.indexOf(`--${name}`)
    if (at < 0) return fallback
    const parsed = Number(argv[at + 1])
    if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} wants a number, got ${argv[at + 1]}`)
    return parsed
  }
  return {
    minutes: value('minutes', 10),
    rate: value('rate', DEFAULT_RATE),
    webSlots: value('web-slots', 1),
    accounts: value('accounts', 4),
    visitors: value('visitors', 6),
    jobsShare: value('jobs-share', 0.3),
    visitorShare: value('visitor-share', 0.25),
    seed: value('seed', 34),
    allocator: allocatorOf(argv),
  }
}

function allocatorOf(argv: string[]): SoakSettings['allocator'] {
  const named = argv.includes('--allocator') ? argv[argv.indexOf('--allocator') + 1] : 'jemalloc'
  if (named !== 'jemalloc' && named !== 'glibc') throw new Error(`--allocator wants jemalloc or glibc, got ${named}`)
  return named
}

/** Where Debian's libjemalloc2 is, as the image links it or as the package installs it; null when absent. */
function jemallocLibrary(): string | null {
  const triplet = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`
  return ['/usr/local/lib/libjemalloc.so.2', `/usr/lib/${triplet}/libjemalloc.so.2`].find((file) => existsSync(file)) ?? null
}

/** The environment that puts the studio's processes on the chosen allocator, as the image does. */
function allocatorEnv(allocator: SoakSettings['allocator']): { LD_PRELOAD?: string; VIPS_CONCURRENCY?: string } {
  if (allocator === 'glibc') return {}
  const library = jemallocLibrary()
  if (!library) throw new Error('--allocator jemalloc (the default): no libjemalloc.so.2 here (apt-get install libjemalloc2), or pass --allocator glibc')
  return { LD_PRELOAD: library, VIPS_CONCURRENCY: '1' }
}

/** mulberry32: a seeded stream, so two soaks send the same mix in the same order. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Client {
  caller: Caller
  name: string
  /** An API key (accounts), or the visitor's cookie jar and address. */
  key?: string
  jar?: Map<string, string>
  address?: string
}

type RunPath = 'sync' | 'jobs'

interface Outcome {
  tool: string
  size: string
  path: RunPath
  caller: Caller
  sentAt: number
  ms: number
  status: number
  retryAfter: string | null
  jobId: string | null
  /** A jobs run: the status its job ended in; a sync run: null. */
  jobStatus: string | null
  error: string | null
}

interface Proc {
  name: string
  child: ChildProcess
  exited: Promise<void>
  /** Where its Prometheus metrics answer (loopback): the V8 heap is read there. */
  metricsUrl?: string
}

/** The V8 heap in use (MB) from a process's /metrics (prom-client's default metrics), or null. */
async function heapUsedMb(metricsUrl: string): Promise<number | null> {
  const text = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) }).then((r) => (r.ok ? r.text() : ''), () => '')
  const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)
  return match ? Number(match[1]) / 2 ** 20 : null
}

function startProcess(name: string, script: string, env: NodeJS.ProcessEnv, onLine?: (line: string) => void): Proc {
  // As package.json's start and worker scripts run them (NODE_ENV=production, the telemetry hook).
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './app/telemetry/register.ts', script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', onLine ? 'pipe' : 'ignore', 'inherit'],
  })
  if (onLine && child.stdout) {
    let buffered = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) onLine(line)
    })
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { name, child, exited }
}

async function stopProcess(proc: Proc): Promise<void> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM')
  await proc.exited
}

/** Waits on a signal (`ready()`), checking now and then that the process is still alive. */
async function waitFor(what: string, proc: Proc, ready: () => Promise<boolean> | boolean, withinMs = 300_000): Promise<void> {
  const giveUp = Date.now() + withinMs
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}) before ${what}`)
    if (await ready()) return
    if (Date.now() > giveUp) throw new Error(`${proc.name}: no ${what} within ${withinMs / 1000} s`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

function headersFor(client: Client, base: string): Record<string, string> {
  if (client.key) return { authorization: `Bearer ${client.key}` }
  // A visitor: its cookies, the studio's own Origin (a cookie write from another site is refused) and
  // its address (TRUST_PROXY=loopback: the studio believes X-Forwarded-For from this driver only).
  const cookie = [...client.jar!].map(([name, value]) => `${name}=${value}`).join('; ')
  return { origin: base, 'x-forwarded-for': client.address!, ...(cookie ? { cookie } : {}) }
}

function keepCookies(client: Client, response: Response): void {
  if (!client.jar) return
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';')
    const at = pair!.indexOf('=')
    if (at > 0) client.jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
  }
}

function formFor(run: SoakCase, withTool: boolean): FormData {
  const form = new FormData()
  if (withTool) form.append('tool', run.tool)
  form.append(run.field, new File([new Uint8Array(run.bytes)], run.fileName, { type: run.type }))
  for (const [name, value] of Object.entries(run.fields)) form.append(name, value)
  return form
}

/** How long a client waits for one answer (a run's limit and room to spare), and how often a jobs run is polled. */
const ANSWER_TIMEOUT_MS = 300_000
const POLL_EVERY_MS = 500

async function sendSync(base: string, client: Client, run: SoakCase): Promise<Omit<Outcome, 'tool' | 'size' | 'path' | 'caller' | 'sentAt' | 'ms'>> {
  const response = await fetch(base + run.endpoint, {
    method: 'POST',
    body: formFor(run, false),
    headers: headersFor(client, base),
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  })
  keepCookies(client, response)
  await response.arrayBuffer()
  return { status: response.status, retryAfter: response.headers.get('retry-after'), jobId: response.headers.get('x-facet-job-id'), jobStatus: null, error: null }
}

async function sendJob(base: string, client: Client, run: SoakCase): Promise<Omit<Outcome, 'tool' | 'size' | 'path' | 'caller' | 'sentAt' | 'ms'>> {
  const giveUp = AbortSignal.timeout(ANSWER_TIMEOUT_MS)
  const response = await fetch(`${base}/api/jobs/`, { method: 'POST', body: formFor(run, true), headers: headersFor(client, base), signal: giveUp })
  keepCookies(client, response)
  const accepted = (await response.json().catch(() => null)) as { id?: string; url?: string } | null
  const retryAfter = response.headers.get('retry-after')
  if (response.status !== 202 || !accepted?.id) return { status: response.status, retryAfter, jobId: null, jobStatus: null, error: null }
  // Polled to its end, as a client of the jobs API does.
  for (;;) {
    await new Promise((r) => setTimeout(r, POLL_EVERY_MS))
    const polled = await fetch(`${base}/api/jobs/${accepted.id}/`, { headers: headersFor(client, base), signal: giveUp })
    const job = (await polled.json().catch(() => null)) as { status?: string; result_url?: string | null } | null
    if (polled.status !== 200) return { status: polled.status, retryAfter: null, jobId: accepted.id, jobStatus: null, error: `poll answered ${polled.status}` }
    if (job?.status === 'succeeded' || job?.status === 'failed') {
      // The ended job's answer, exactly as the tool's endpoint would give it.
      const answer = await fetch(`${base}/api/jobs/${accepted.id}/answer/`, { headers: headersFor(client, base), signal: giveUp })
      await answer.arrayBuffer()
      const status = job.status === 'succeeded' ? 202 : answer.status
      return { status, retryAfter: null, jobId: accepted.id, jobStatus: job.status, error: job.status === 'succeeded' && answer.status !== 200 ? `answer ${answer.status}` : null }
    }
  }
}

export async function benchSoak(argv: string[] = process.argv.slice(2)): Promise<object> {
  const settings = soakSettings(argv)
  buildForBench()
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const database = `soak_${process.pid}`
  const url = adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}$1`)
  const admin = createPostgresHandle(adminUrl, 1)
  await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'facet-soak-'))
  const procs: Proc[] = []
  const handle = createPostgresHandle(url, 4)
  try {
    // This process writes the accounts (domain functions, as the tests do) and reads the ledger at the end.
    Object.assign(process.env, { DATABASE_URL: url, LOG_LEVEL: 'warn' })
    resetConfigForTests()
    await migrateToLatest(handle.db)
    useDatabaseHandle(handle)
    const clients: Client[] = []
    for (let i = 0; i < settings.accounts; i++) {
      const user = await handle.db
        .insertInto('users')
        .values({ email: `soak-${i}-${process.pid}@example.test`, password_hash: 'x', first_name: 'Soak', last_name: String(i), email_verified_at: new Date() })
        .returning('id')
        .executeTakeFirstOrThrow()
      const made = await createApiKey(user.id, { name: 'soak', environment: 'live' })
      if (!made.ok) throw new Error('no key')
      await grant({ accountId: await ensureUserAccount(user.id), amount: 1_000_000, kind: 'adjustment', description: 'soak' })
      clients.push({ caller: 'key', name: `account ${i}`, key: made.key.key })
    }
    for (let i = 0; i < settings.visitors; i++) {
      clients.push({ caller: 'visitor', name: `visitor ${i}`, jar: new Map(), address: `10.34.8.${i + 1}` })
    }

    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: url,
      // Shared by every process of one studio (README: several instances).
      SESSION_SECRET: randomBytes(32).toString('hex'),
      RESULTS_KEY: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: base,
      TRUST_PROXY: 'loopback',
      LOG_LEVEL: 'warn',
    }
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT
    // The allocator is the setting's, not whatever the shell preloads.
    delete env.LD_PRELOAD
    Object.assign(env, allocatorEnv(settings.allocator))
    const web = startProcess('web', 'server.ts', { ...env, DATA_DIR: path.join(scratch, 'web'), WORKER_CONCURRENCY: String(settings.webSlots) })
    web.metricsUrl = `${base}/metrics`
    procs.push(web)
    await waitFor('answer on /healthz', web, () => fetch(`${base}/healthz`).then((r) => r.ok, () => false))
    for (let i = 0; i < 2; i++) {
      let ready = false
      const metricsPort = await freePort()
      const worker = startProcess(`worker ${i + 1}`, 'scripts/worker.ts', { ...env, DATA_DIR: path.join(scratch, `worker-${i}`), WORKER_CONCURRENCY: '1', LOG_LEVEL: 'info', METRICS_PORT: String(metricsPort) }, (line) => {
        if (line.includes('"worker ready"')) ready = true
        else if (/"level":(40|50|60)/.test(line)) console.error(`  worker ${i + 1}: ${line}`)
      })
      worker.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
      procs.push(worker)
      await waitFor('"worker ready"', worker, () => ready)
    }
    // Each visitor's first visit gives it its cookie (as a browser gets one with its first page), so
    // two of its runs sent at once belong to one visitor.
    for (const visitor of clients.filter((c) => c.caller === 'visitor')) {
      const first = await fetch(`${base}/api/credits/balance/`, { headers: headersFor(visitor, base) })
      keepCookies(visitor, first)
      await first.arrayBuffer()
      if (visitor.jar!.size === 0) throw new Error(`${visitor.name} got no cookie (${first.status})`)
    }

    // Memory: each process with its children (the SVG renderers), every few seconds; and its V8 heap
    // in use, which tells a JavaScript leak from memory the allocator keeps after a busy spell.
    const memory = new Map<string, MemorySample[]>(procs.map((p) => [p.name, []]))
    const heap = new Map<string, MemorySample[]>(procs.map((p) => [p.name, []]))
    const started = performance.now()
    const now = () => (performance.now() - started) / 1000
    const sample = () => {
      for (const p of procs) {
        const at = now()
        const kb = processTree(p.child.pid!).reduce((sum, pid) => sum + statusKb(pid, 'VmRSS'), 0)
        memory.get(p.name)!.push({ at, mb: kb / 1024 })
        if (p.metricsUrl) void heapUsedMb(p.metricsUrl).then((mb) => mb !== null && heap.get(p.name)!.push({ at, mb }))
      }
    }
    sample()
    const sampler = setInterval(sample, 5_000)

    const cases = await soakCases()
    const random = seeded(settings.seed)
    const keyClients = clients.filter((c) => c.caller === 'key')
    const visitorClients = clients.filter((c) => c.caller === 'visitor')
    const durationS = settings.minutes * 60
    const warmUpS = Math.min(60, durationS / 5)
    const outcomes: Outcome[] = []
    const inFlight = new Set<Promise<void>>()
    let peakInFlight = 0
    const arrivals = Math.floor(durationS * settings.rate)
    console.error(`  soak: ${arrivals} runs over ${settings.minutes} min at ${settings.rate}/s, ${settings.accounts} accounts + ${settings.visitors} visitors, web slots ${settings.webSlots}, 2 workers, ${settings.allocator}${env.LD_PRELOAD ? ` (${env.LD_PRELOAD})` : ''}; ${base}`)
    for (let i = 0; i < arrivals; i++) {
      const due = (i / settings.rate) * 1000
      const wait = due - (performance.now() - started)
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      const run = cases[Math.floor(random() * cases.length)]!
      const fromVisitor = visitorClients.length > 0 && (keyClients.length === 0 || random() < settings.visitorShare)
      const client = fromVisitor ? visitorClients[Math.floor(random() * visitorClients.length)]! : keyClients[Math.floor(random() * keyClients.length)]!
      const runPath: RunPath = random() < settings.jobsShare ? 'jobs' : 'sync'
      const sentAt = now()
      const t0 = performance.now()
      const sent = (runPath === 'jobs' ? sendJob(base, client, run) : sendSync(base, client, run))
        .catch((error: Error) => ({ status: 0, retryAfter: null, jobId: null, jobStatus: null, error: `${error.name}: ${error.message}${error.cause ? ` (${String((error.cause as Error).message ?? error.cause)})` : ''}` }))
        .then((answer) => {
          outcomes.push({ tool: run.tool, size: run.size, path: runPath, caller: client.caller, sentAt, ms: performance.now() - t0, ...answer })
        })
      const tracked: Promise<void> = sent.finally(() => inFlight.delete(tracked))
      inFlight.add(tracked)
      peakInFlight = Math.max(peakInFlight, inFlight.size)
      if (i > 0 && i % Math.max(1, Math.round(settings.rate * 60)) === 0) {
        console.error(`  ${Math.round(now())} s: ${i} sent, ${outcomes.length} answered, ${inFlight.size} in flight, web ${Math.round(memory.get('web')!.at(-1)!.mb)} MB`)
      }
    }
    const loadEndsAt = Math.max(now(), durationS)
    await Promise.all(inFlight)
    const answeredAt = now()
    // Nothing may stay queued or running: wait until the workers have ended every job.
    const open = async () =>
      (await handle.db.selectFrom('tool_jobs').select(sql<number>`count(*)::int`.as('n')).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow()).n
    const settleBy = Date.now() + 300_000
    while ((await open()) > 0 && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 1_000))
    clearInterval(sampler)
    sample()
    await new Promise((r) => setTimeout(r, 1_000)) // the last heap readings

    // Which synchronous runs ran inline: an inline run has no pg-boss job (decision 176).
    const syncIds = outcomes.filter((o) => o.path === 'sync' && o.jobId).map((o) => o.jobId!)
    const queued = new Set(
      syncIds.length
        ? (await sql<{ id: string }>`SELECT id::text FROM pgboss.job WHERE id = ANY(${syncIds}::uuid[])`.execute(handle.db)).rows.map((r) => r.id)
        : [],
    )
    const pathOf = (o: Outcome) => (o.path === 'jobs' ? 'jobs API' : !o.jobId ? 'sync (refused)' : queued.has(o.jobId) ? 'sync queue' : 'sync inline')

    const rows: Array<Record<string, unknown>> = []
    const refusals: Record<string, number> = {}
    const errors: Array<{ tool: string; path: string; status: number; error: string | null }> = []
    const groups = new Map<string, Outcome[]>()
    for (const o of outcomes) {
      const verdict = classifyAnswer(o.caller, o.status, o.retryAfter, TOOLS[o.tool as ToolSlug].signInRequired, o.jobId !== null)
      if (verdict.kind === 'refused') refusals[verdict.why] = (refusals[verdict.why] ?? 0) + 1
      const key = `${o.tool}|${pathOf(o)}`
      if (verdict.kind === 'delivered' || verdict.kind === 'error') groups.set(key, [...(groups.get(key) ?? []), o])
      if (verdict.kind === 'error' || o.error) errors.push({ tool: o.tool, path: pathOf(o), status: o.status, error: o.error })
    }
    for (const [key, list] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      const [tool, runPath] = key.split('|')
      const delivered = list.filter((o) => o.status === 200 || (o.status === 202 && !o.error))
      const afterWarmUp = delivered.filter((o) => o.sentAt >= warmUpS).map((o) => o.ms)
      const byStatus: Record<string, number> = {}
      for (const o of list.filter((x) => !delivered.includes(x))) byStatus[o.status || 'network'] = (byStatus[o.status || 'network'] ?? 0) + 1
      rows.push({
        tool,
        path: runPath,
        delivered: delivered.length,
        ...(({ count, ...figures }) => ({ timedAfterWarmUp: count, ...figures }))(latencyFigures(afterWarmUp)),
        errors: Object.entries(byStatus).map(([s, n]) => `${s}×${n}`).join(' ') || '-',
      })
    }
    console.table(rows)
    console.log('Refusals (correct answers):', refusals)

    const trends = Object.fromEntries([...memory].map(([name, samples]) => [name, memoryTrend(samples, warmUpS, loadEndsAt)]))
    const heapTrends = Object.fromEntries([...heap].map(([name, samples]) => [name, memoryTrend(samples.sort((a, b) => a.at - b.at), warmUpS, loadEndsAt)]))
    // A step (a rise past STEP_MB between two samples) printed as "when s +MB".
    const tableOf = (trendsOf: Record<string, MemoryTrend>) =>
      Object.entries(trendsOf).map(([name, t]) => ({ process: name, ...t, steps: t.steps.map((step) => `${step.at} s +${step.mb}`).join(', ') || '-', floorsMb: t.floorsMb.join(' ') }))
    console.log('Resident memory (MB, with child processes):')
    console.table(tableOf(trends))
    console.log('V8 heap in use (MB):')
    console.table(tableOf(heapTrends))

    const ledger = await checkLedger(handle.db)
    const failedJobs = await handle.db
      .selectFrom('tool_jobs')
      .select(['id', 'tool', 'error_status', 'error', 'attempts', 'refunded'])
      .where('status', '=', 'failed')
      .execute()
    if (failedJobs.length) console.table(failedJobs)
    console.log(
      `Ledger: ${ledger.accounts} accounts, balances off their ledger: ${ledger.balancesOffLedger.length}; ${ledger.delivered} delivered jobs, not charged exactly once: ${ledger.deliveredNotChargedOnce.length}; ${ledger.failed} failed, left charged: ${ledger.failedLeftCharged.length}; left queued or running: ${ledger.leftQueuedOrRunning} → ${ledger.ok ? 'OK' : 'MISMATCH'}`,
    )

    // The workers' busy share: the rate's headroom (CPU seconds of runs over the workers' time).
    const runSeconds = await sql<{ seconds: number }>`
      SELECT coalesce(sum(extract(epoch FROM finished_at - started_at)), 0)::float AS seconds FROM tool_jobs WHERE started_at IS NOT NULL AND finished_at IS NOT NULL`.execute(handle.db)
    const slots = 2 + settings.webSlots
    const busyShare = round(runSeconds.rows[0]!.seconds / (slots * answeredAt), 2)
    // Per tool: how long its runs took in a slot and waited for one (the rate's sizing reads these).
    const byTool = await sql<{ tool: string; runs: number; mean_run_s: number; p50_wait_s: number; max_wait_s: number }>`
      SELECT tool, count(*)::int AS runs,
        round(avg(extract(epoch FROM finished_at - started_at))::numeric, 2)::float AS mean_run_s,
        round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)))::numeric, 2)::float AS p50_wait_s,
        round(max(extract(epoch FROM started_at - created_at))::numeric, 2)::float AS max_wait_s
      FROM tool_jobs WHERE started_at IS NOT NULL AND finished_at IS NOT NULL GROUP BY tool ORDER BY tool`.execute(handle.db)
    console.table(byTool.rows)
    const meanRunS = byTool.rows.reduce((sum, r) => sum + r.mean_run_s * r.runs, 0) / Math.max(1, byTool.rows.reduce((sum, r) => sum + r.runs, 0))
    console.log(`Mean run ${round(meanRunS, 2)} s in a slot: ${slots} slots keep up with about ${round(slots / meanRunS, 2)} runs/s at this load (sent ${settings.rate}/s)`)
    const load = os.loadavg().map((l) => round(l, 2))
    console.log(`Run time over the ${slots} run slots' time: ${busyShare}; sent ${arrivals}, peak in flight ${peakInFlight}, all answered ${round(answeredAt)} s after the start; load average ${load.join(' ')}`)

    return {
      settings,
      base: 'loopback',
      mix: cases.map((c) => ({ tool: c.tool, size: c.size, upload: c.describe, bytes: c.bytes.length })),
      sent: arrivals,
      answered: outcomes.length,
      peakInFlight,
      warmUpSeconds: warmUpS,
      allAnsweredAfterSeconds: round(answeredAt),
      runSlotsBusyShare: busyShare,
      runsByTool: byTool.rows,
      meanRunSeconds: round(meanRunS, 2),
      keepsUpWithRunsPerSecond: round(slots / meanRunS, 2),
      rows,
      refusals,
      errors,
      memory: trends,
      heap: heapTrends,
      failedJobs,
      memorySamples: Object.fromEntries([...memory].map(([name, samples]) => [name, samples.map((s) => [round(s.at), round(s.mb)])])),
      heapSamples: Object.fromEntries([...heap].map(([name, samples]) => [name, samples.map((s) => [round(s.at), round(s.mb)])])),
      ledger,
      loadAverageAtEnd: load,
    }
  } finally {
    for (const p of [...procs].reverse()) await stopProcess(p)
    await handle.db.destroy().catch(() => {})
    await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
    await admin.db.destroy()
    rmSync(scratch, { recursive: true, force: true })
  }
}

runAsScript(import.meta.url, benchSoak)
