// Tool runs through the queue against a direct call: the background remover on a photo resized to
// about 1 MP, N runs each way, one after another, in one process (web + worker, PGlite in memory).
// Through the queue is the whole path a spec endpoint takes (parse, charge + job in one transaction,
// worker claim, run, outcome with the stored result, the answer); direct is the runner alone.
// Runs per minute with one worker process against two needs PostgreSQL: see the report's note.
import { PGlite } from '@electric-sql/pglite'
import sharp from 'sharp'
import { resetConfigForTests } from '../app/config.server'
import { createPGliteHandle, pgliteOptions, useDatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import { resolveCaller } from '../app/features/credits/caller.server'
import { grant } from '../app/features/credits/ledger.server'
import { stopBoss } from '../app/features/queue/boss.server'
import { runToolSubmission } from '../app/features/tools/jobs/submit.server'
import { runnerFor } from '../app/features/tools/runners/index.server'

const RUNS = Number(process.env.BENCH_RUNS ?? 20)

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function onePhoto(): Promise<Buffer> {
  return sharp('tests/fixtures/photos/product-gameboy-white-bg.jpg').resize({ width: 1155, height: 866, fit: 'fill' }).jpeg().toBuffer()
}

export async function benchJobs() {
  process.env.RATE_LIMITS = 'false'
  process.env.TOOL_QUEUE_LIMIT = '1000'
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
  resetConfigForTests()
  const handle = createPGliteHandle(new PGlite(pgliteOptions()))
  await migrateToLatest(handle.db)
  useDatabaseHandle(handle)
  const bytes = await onePhoto()
  const runner = runnerFor('background-remover')
  const options = await runner.parseOptions({})

  const direct: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now()
    await runner.run({ bytes, options, signal: new AbortController().signal, progress: () => {} })
    if (i > 0) direct.push(performance.now() - started) // the first run loads the model
  }

  const headers = { 'x-facet-client-ip': '10.9.9.9' }
  const visitor = await resolveCaller(new Request('http://localhost/', { headers }))
  if (visitor.kind !== 'caller' || !visitor.setCookie) throw new Error('no visitor')
  await grant({ accountId: visitor.caller.accountId, amount: RUNS * 2 + 10, kind: 'adjustment', description: 'bench' })
  const cookie = visitor.setCookie.split(';')[0]!
  const queued: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    const form = new FormData()
    form.append('image', new File([new Uint8Array(bytes)], 'photo.jpg', { type: 'image/jpeg' }))
    const request = new Request('http://localhost/api/remove-bg/', { method: 'POST', body: form, headers: { ...headers, cookie } })
    const started = performance.now()
    const answer = await runToolSubmission(request, 'background-remover')
    if (!answer.ok) throw new Error(`run failed: ${answer.error}`)
    if (i > 0) queued.push(performance.now() - started) // the first starts pg-boss and the worker
  }
  await stopBoss({ timeoutMs: 5_000 })
  await handle.db.destroy()

  const figures = {
    runs: RUNS,
    megapixels: 1.0,
    directP50Ms: Math.round(percentile(direct, 50)),
    directP95Ms: Math.round(percentile(direct, 95)),
    queuedP50Ms: Math.round(percentile(queued, 50)),
    queuedP95Ms: Math.round(percentile(queued, 95)),
    addedP50Ms: Math.round(percentile(queued, 50) - percentile(direct, 50)),
    addedP95Ms: Math.round(percentile(queued, 95) - percentile(direct, 95)),
    note: 'Runs per minute with one worker process against two (PostgreSQL, real processes) were not measured in this benchmark yet.',
  }
  console.table([figures])
  return figures
}
