// The Prometheus metrics of this process (prom-client). Counters and histograms are per process:
// they start at zero when it starts, and Prometheus's rate()/increase() read across restarts; sum
// them over every web and worker process for the whole studio. The queue gauges are read from the
// database at scrape time, so every process reports the same (shared) queue.
import { sql } from 'kysely'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { getDb } from '~/db/db.server'
import { singleton } from '~/utils/singleton.server'

/** Seconds, from a fast API answer to a 12 MP enhancement on a busy machine. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]
const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]

function createMetrics() {
  const registry = new Registry()
  // process_* and nodejs_* (CPU, memory, handles, GC, event-loop lag) under their usual names.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 })
  const registers = [registry]
  return {
    registry,
    httpRequests: new Counter({
      name: 'facet_http_requests_total',
      help: 'HTTP requests answered, by method, route (the Remix route id, or the server path) and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'facet_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer finishing, by method, route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    toolRuns: new Counter({
      name: 'facet_tool_runs_total',
      help: 'Tool runs recorded by this process, by tool, model, outcome (success, no_face, failed, rejected) and path (inline, queue).',
      labelNames: ['tool', 'model', 'outcome', 'path'] as const,
      registers,
    }),
    toolRunDuration: new Histogram({
      name: 'facet_tool_run_duration_seconds',
      help: 'The work of a tool run (decode, model, refine, encode), by tool, model and path (inline: in the request; queue: a pg-boss job).',
      labelNames: ['tool', 'model', 'path'] as const,
      buckets: RUN_BUCKETS,
      registers,
    }),
    toolQueueWait: new Histogram({
      name: 'facet_tool_queue_wait_seconds',
      help: 'Time a tool job waited in the queue before a worker claimed it, by tool.',
      labelNames: ['tool'] as const,
      buckets: RUN_BUCKETS,
      registers,
    }),
    queueJobs: new Gauge({
      name: 'facet_queue_jobs',
      help: 'Tool jobs in the queue now (all processes), by state: waiting or running.',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const queue = await readQueue()
        if (!queue) return this.reset()
        this.set({ state: 'waiting' }, queue.waiting)
        this.set({ state: 'running' }, queue.running)
      },
    }),
    queueOldestWaiting: new Gauge({
      name: 'facet_queue_oldest_waiting_seconds',
      help: 'Age of the oldest tool job still waiting for a worker (0 when none waits).',
      registers,
      async collect() {
        const queue = await readQueue()
        if (!queue) return this.reset()
        this.set(queue.oldestWaitingSeconds)
      },
    }),
    creditsCharged: new Counter({
      name: 'facet_credits_charged_total',
      help: 'Credits charged for tool runs by this process (the ledger writes the charge).',
      registers,
    }),
    creditsRefunded: new Counter({
      name: 'facet_credits_refunded_total',
      help: 'Credits given back for runs that failed or owed nothing, by this process.',
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'facet_webhook_deliveries_total',
      help: 'Webhook delivery attempts by this process, by outcome: succeeded, retrying (failed, tried again later) or failed (given up).',
      labelNames: ['outcome'] as const,
      registers,
    }),
  }
}

export function metrics() {
  return singleton('metrics', createMetrics)
}

interface QueueState {
  waiting: number
  running: number
  oldestWaitingSeconds: number
}

// One query per scrape for both queue gauges (each gauge's collect asks; the second gets the first's
// answer). The partial index tool_jobs_unfinished keeps it to the unfinished rows. With the database
// away the gauges have no value (their series are absent) and the rest of the scrape still answers.
let pendingQueueRead: Promise<QueueState | null> | null = null
function readQueue(): Promise<QueueState | null> {
  pendingQueueRead ??= getDb()
    .selectFrom('tool_jobs')
    .select([
      sql<number>`count(*) filter (where status = 'queued')::int`.as('waiting'),
      sql<number>`count(*) filter (where status = 'running')::int`.as('running'),
      sql<number>`coalesce(extract(epoch from now() - min(created_at) filter (where status = 'queued')), 0)::float8`.as('oldest'),
    ])
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
    .then((row) => ({ waiting: row.waiting, running: row.running, oldestWaitingSeconds: Number(row.oldest) }))
    .catch(() => null)
    .finally(() => setImmediate(() => (pendingQueueRead = null)))
  return pendingQueueRead
}

/** The exposition text and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  const { registry } = metrics()
  return { body: await registry.metrics(), contentType: registry.contentType }
}

export function countToolRun(run: { tool: string; model: string; outcome: string; path: 'inline' | 'queue'; runSeconds: number | null }): void {
  const m = metrics()
  m.toolRuns.inc({ tool: run.tool, model: run.model, outcome: run.outcome, path: run.path })
  if (run.runSeconds !== null) m.toolRunDuration.observe({ tool: run.tool, model: run.model, path: run.path }, run.runSeconds)
}

export function observeQueueWait(tool: string, seconds: number): void {
  metrics().toolQueueWait.observe({ tool }, Math.max(0, seconds))
}

export function countCredits(kind: 'charged' | 'refunded', amount: number): void {
  const m = metrics()
  ;(kind === 'charged' ? m.creditsCharged : m.creditsRefunded).inc(amount)
}

export function countWebhookDelivery(outcome: 'succeeded' | 'retrying' | 'failed'): void {
  metrics().webhookDeliveries.inc({ outcome })
}

export function observeHttpRequest(labels: { method: string; route: string; status: number }, seconds: number): void {
  const m = metrics()
  const l = { method: labels.method, route: labels.route, status: String(labels.status) }
  m.httpRequests.inc(l)
  m.httpDuration.observe(l, seconds)
}
