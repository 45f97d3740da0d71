// The studio's processes as an operator runs them: `npm start` and `npm run worker` stop (draining)
// when npm itself gets SIGTERM, and with OTEL_EXPORTER_OTLP_ENDPOINT set one trace follows a run
// from the HTTP request through the queue to the worker's stages, checked at a local OTLP/HTTP
// receiver. Real processes, no browser (the js project only). The worker cases need PostgreSQL
// (TEST_DATABASE_URL), like every second process.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import pg from 'pg'
// Playwright's own test: no page, so no browser is started.
import { expect, test } from '@playwright/test'

// Starting a studio (and a worker) takes a while on a busy machine: bounded by events, not sleeps.
test.describe.configure({ timeout: 180_000 })

const BASE_PORT = Number(process.env.E2E_PORT ?? 3210) + 20
const adminUrl = process.env.TEST_DATABASE_URL

interface Running {
  npm: ChildProcess
  output: () => string
}

/** Every npm started here: a test that times out skips its `finally`, the afterEach still stops them. */
const started = new Set<Running>()
test.afterEach(() => {
  for (const running of started) killLeftovers(running)
  started.clear()
})

/** A data folder emptied first: a studio's embedded database left by an earlier run of the suite keeps that
 * run's rows, and so the visitor's spent daily balance (the traces test's run was refused with 402 on a
 * checkout's fourth run of a day). */
function freshDataDir(name: string): string {
  const dir = `tests/.tmp/${name}`
  rmSync(dir, { recursive: true, force: true })
  return dir
}

/** `npm <args>` as an operator types it. */
function npm(args: string[], env: Record<string, string>): Running {
  const child = spawn('npm', args, {
    env: { ...process.env, LOG_LEVEL: 'info', BUILD_DIR: process.env.BUILD_DIR ?? 'build', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const running = { npm: child, output: () => output }
  started.add(running)
  return running
}

/** The processes npm started (its script's node: `exec` made it npm's own child). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map(Number).filter(Boolean)
  } catch {
    return []
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(true))
  })
}

async function waitForStatus(url: string, status = 200): Promise<void> {
  await expect.poll(async () => (await fetch(url).catch(() => null))?.status, { timeout: 90_000 }).toBe(status)
}

/** A signal to npm's own pid, as a supervisor (SIGTERM) or a terminal (SIGINT) sends it; npm ends when its script has. */
async function stopNpm(running: Running, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<{ code: number | null; servers: number[] }> {
  const servers = childrenOf(running.npm.pid!)
  expect(servers.length, running.output()).toBeGreaterThan(0)
  running.npm.kill(signal)
  const [code] = (await once(running.npm, 'exit')) as [number | null]
  return { code, servers }
}

async function scratchDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  return adminUrl!.replace(/\/[^/?]*(\?.*)?$/, `/${name}`)
}

function killLeftovers(running: Running) {
  for (const pid of childrenOf(running.npm.pid!)) process.kill(pid, 'SIGKILL')
  if (running.npm.exitCode === null) running.npm.kill('SIGKILL')
}

// Process checks run once: in the js project.
test.describe('signals', { tag: '@js-only' }, () => {

  for (const [signal, port] of [['SIGTERM', BASE_PORT], ['SIGINT', BASE_PORT + 7]] as const) {
    test(`${signal} to \`npm start\` drains and stops the server: its pid gone, its port free`, async () => {
      let running: Running | undefined
      try {
        running = npm(['start'], { PORT: String(port), DATA_DIR: freshDataDir(`e2e-npm-start-${port}`), PUBLIC_URL: `http://localhost:${port}` })
        await waitForStatus(`http://127.0.0.1:${port}/livez`)
        const { code, servers } = await stopNpm(running, signal)
        expect(code, running.output()).toBe(0)
        expect(running.output()).toContain(`"signal":"${signal}"`)
        expect(running.output()).toContain('shutting down')
        expect(running.output()).toContain('"stopped"')
        expect(servers.filter(isRunning)).toEqual([])
        expect(await portIsFree(port)).toBe(true)
      } finally {
        if (running) killLeftovers(running)
      }
    })
  }

  test('SIGTERM to `npm run worker` drains and stops the worker (PostgreSQL)', async () => {
    test.skip(!adminUrl, 'a worker process needs PostgreSQL: set TEST_DATABASE_URL')
    const metricsPort = BASE_PORT + 1
    let running: Running | undefined
    try {
      const url = await scratchDatabase(`e2e_worker_signal_${metricsPort}`)
      running = npm(['run', 'worker'], { DATABASE_URL: url, METRICS_PORT: String(metricsPort), WORKER_CONCURRENCY: '1', DATA_DIR: freshDataDir(`e2e-worker-${metricsPort}`) })
      // The worker's own listener: ready once migrated with its job slots taken.
      await waitForStatus(`http://127.0.0.1:${metricsPort}/readyz`)
      const ready = await (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).json()
      expect(ready.checks.worker).toMatchObject({ ok: true, role: 'worker', state: 'running' })
      expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toContain('# TYPE facet_tool_runs_total counter')
      const { code, servers } = await stopNpm(running)
      expect(code, running.output()).toBe(0)
      expect(running.output()).toContain('worker draining')
      expect(running.output()).toContain('"worker stopped"')
      expect(servers.filter(isRunning)).toEqual([])
      expect(await portIsFree(metricsPort)).toBe(true)
    } finally {
      if (running) killLeftovers(running)
    }
  })
})

interface ReceivedSpan {
  name: string
  spanId: string
  parentSpanId?: string
  traceId: string
  kind: number
  scope: string
}

/** A local OTLP/HTTP receiver (JSON): every span exported to it. */
async function otlpReceiver(port: number): Promise<{ server: Server; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: Omit<ReceivedSpan, 'scope'>[] }[] }[] }
        for (const resource of payload.resourceSpans) {
          for (const scoped of resource.scopeSpans) for (const span of scoped.spans) spans.push({ ...span, scope: scoped.scope.name })
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')
    })
  })
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  return { server, spans }
}

/** The span's ancestors, nearest first (within what was received). */
function ancestors(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = []
  let parent = spans.find((s) => s.spanId === span.parentSpanId)
  while (parent) {
    chain.push(parent)
    parent = spans.find((s) => s.spanId === parent!.parentSpanId)
  }
  return chain
}

const SPAN_KIND_SERVER = 2

function expectOneTrace(spans: ReceivedSpan[], output: string) {
  const job = spans.find((s) => s.name === 'tool job')
  expect(job, `no job span among ${spans.map((s) => s.name).join(', ')}\n${output}`).toBeTruthy()
  // The job continues the request's trace: its ancestors reach the incoming HTTP request's span.
  const up = ancestors(job!, spans)
  const request = up.find((s) => s.scope === '@opentelemetry/instrumentation-http' && s.kind === SPAN_KIND_SERVER)
  expect(request, up.map((s) => s.name).join(' <- ')).toBeTruthy()
  expect(request!.name).toMatch(/^POST/)
  const child = (name: string, parent: ReceivedSpan) => spans.find((s) => s.name === name && s.parentSpanId === parent.spanId)
  const run = child('run', job!)
  expect(run).toBeTruthy()
  // The background remover's stages, in its own words.
  for (const stage of ['decoded', 'matte', 'refined', 'encoded']) expect(child(`stage ${stage}`, run!), stage).toBeTruthy()
  expect(child('queue wait', job!)).toBeTruthy()
  const outcome = child('outcome transaction', job!)
  expect(outcome).toBeTruthy()
  for (const span of [run!, outcome!]) expect(span.traceId).toBe(request!.traceId)
  return { outcome: outcome!, request: request! }
}

test.describe('traces', { tag: '@js-only' }, () => {

  test('one trace follows a run from the request through the queue to the stages and the outcome', async () => {
    const port = BASE_PORT + 2
    const receiver = await otlpReceiver(BASE_PORT + 3)
    let running: Running | undefined
    try {
      running = npm(['start'], {
        PORT: String(port),
        PUBLIC_URL: `http://localhost:${port}`,
        DATA_DIR: freshDataDir(`e2e-traces-${port}`),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${BASE_PORT + 3}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // The queue's path, which has a queue wait to trace (a short run would go inline: decision 176).
        INLINE_RUN_MS: '0',
      })
      await waitForStatus(`http://127.0.0.1:${port}/livez`)
      const form = new FormData()
      form.append('image', new Blob([readFileSync('tests/fixtures/photos/product-router-alpha-groundtruth.png')], { type: 'image/png' }), 'product.png')
      const answer = await fetch(`http://127.0.0.1:${port}/api/remove-bg/`, { method: 'POST', body: form })
      expect(answer.status).toBe(200)
      // Shutdown flushes what is still batched.
      const { code } = await stopNpm(running)
      expect(code, running.output()).toBe(0)
      expectOneTrace(receiver.spans, running.output())
      // Probes are not traced.
      expect(receiver.spans.filter((s) => /livez/.test(s.name))).toEqual([])
    } finally {
      receiver.server.close()
    }
  })

  test('across processes: a web-only server queues, a worker process continues the trace, with pg spans (PostgreSQL)', async () => {
    test.skip(!adminUrl, 'a worker process needs PostgreSQL: set TEST_DATABASE_URL')
    const port = BASE_PORT + 4
    const receiver = await otlpReceiver(BASE_PORT + 5)
    let web: Running | undefined
    let worker: Running | undefined
    try {
      const url = await scratchDatabase(`e2e_traces_${port}`)
      const shared = {
        DATABASE_URL: url,
        RESULTS_KEY: 'ab'.repeat(32),
        SESSION_SECRET: 'a-session-secret-for-the-trace-test-0123',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${BASE_PORT + 5}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }
      web = npm(['start'], { ...shared, PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, WORKER_CONCURRENCY: '0', DATA_DIR: freshDataDir(`e2e-traces-web-${port}`), OTEL_SERVICE_NAME: 'facet-web' })
      await waitForStatus(`http://127.0.0.1:${port}/readyz`)
      worker = npm(['run', 'worker'], { ...shared, WORKER_CONCURRENCY: '1', METRICS_PORT: String(BASE_PORT + 6), DATA_DIR: freshDataDir(`e2e-traces-worker-${port}`), OTEL_SERVICE_NAME: 'facet-worker' })
      await waitForStatus(`http://127.0.0.1:${BASE_PORT + 6}/readyz`)
      const form = new FormData()
      form.append('image', new Blob([readFileSync('tests/fixtures/photos/product-router-alpha-groundtruth.png')], { type: 'image/png' }), 'product.png')
      const answer = await fetch(`http://127.0.0.1:${port}/api/remove-bg/`, { method: 'POST', body: form })
      expect(answer.status, `${await answer.text()}\n${web.output()}\n${worker.output()}`).toBe(200)
      expect((await stopNpm(worker)).code, worker.output()).toBe(0)
      expect((await stopNpm(web)).code, web.output()).toBe(0)
      const { outcome } = expectOneTrace(receiver.spans, worker.output())
      // The outcome transaction's statements, from the pg instrumentation, under its span.
      const statements = receiver.spans.filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && ancestors(s, receiver.spans).includes(outcome))
      expect(statements.length).toBeGreaterThan(0)
    } finally {
      receiver.server.close()
    }
  })
})
