// A batch of 50 one-megapixel photos through the background remover (POST /api/batches/ path,
// then following the batch until it completes) against the same 50 sent as single requests one
// after another by a client that waits for each answer. Same process (web + worker, PGlite in
// memory), one run each, batch first. WORKER_CONCURRENCY and JOBS_PER_ACCOUNT are the defaults.
import { PGlite } from '@electric-sql/pglite'
import { config, resetConfigForTests } from '../app/config.server'
import { createPGliteHandle, pgliteOptions, useDatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
// Features' subscriptions to each other's events, as in every process that ends jobs (decision 118).
import '../app/features/wiring.server'
import { acceptBatch } from '../app/features/batches/api.server'
import { findOwnedBatch } from '../app/features/batches/batches.server'
import { resolveCaller } from '../app/features/account/caller.server'
import { grant } from '../app/features/credits/ledger.server'
import { stopBoss } from '../app/features/queue/boss.server'
import { runToolSubmission } from '../app/features/tools/submit.server'
import { onePhoto } from './jobs-photo'

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 50)

export async function benchBatches() {
  process.env.RATE_LIMITS = 'false'
  process.env.TOOL_QUEUE_LIMIT = '1000'
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
  resetConfigForTests()
  const handle = createPGliteHandle(new PGlite(pgliteOptions()))
  await migrateToLatest(handle.db)
  useDatabaseHandle(handle)
  const bytes = await onePhoto()
  const headers = { 'x-facet-client-ip': '10.9.9.8' }
  const visitor = await resolveCaller(new Request('http://localhost/', { headers }))
  if (visitor.kind !== 'caller' || !visitor.setCookie) throw new Error('no visitor')
  await grant({ accountId: visitor.caller.accountId, amount: ITEMS * 2 + 10, kind: 'adjustment', description: 'bench' })
  const cookie = visitor.setCookie.split(';')[0]!
  const photo = (i: number) => new File([new Uint8Array(bytes)], `photo-${i}.jpg`, { type: 'image/jpeg' })
  const single = async (i: number) => {
    const form = new FormData()
    form.append('image', photo(i))
    const answer = await runToolSubmission(new Request('http://localhost/api/remove-bg/', { method: 'POST', body: form, headers: { ...headers, cookie } }), 'background-remover')
    if (!answer.ok) throw new Error(`run failed: ${answer.error}`)
  }
  // Warm-up: the model loaded and pg-boss started before either is timed.
  await single(-1)

  let started = performance.now()
  const form = new FormData()
  form.append('tool', 'background-remover')
  for (let i = 0; i < ITEMS; i++) form.append('image', photo(i))
  const accepted = await acceptBatch(new Request('http://localhost/api/batches/', { method: 'POST', body: form, headers: { ...headers, cookie } }))
  if (!accepted.ok) throw new Error(`batch refused: ${accepted.error}`)
  const acceptedMs = performance.now() - started
  for (;;) {
    const batch = await findOwnedBatch(accepted.batch.id, visitor.caller.accountId)
    if (batch?.status === 'completed') {
      if (batch.done !== ITEMS) throw new Error(`batch: ${batch.failed} failed`)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const batchMs = performance.now() - started

  started = performance.now()
  for (let i = 0; i < ITEMS; i++) await single(i)
  const singlesMs = performance.now() - started
  await stopBoss({ timeoutMs: 5_000 })
  await handle.db.destroy()

  const figures = {
    items: ITEMS,
    megapixels: 1.0,
    workerSlots: config().workerConcurrency,
    jobsPerAccount: config().JOBS_PER_ACCOUNT,
    batchAcceptedMs: Math.round(acceptedMs),
    batchTotalS: Number((batchMs / 1000).toFixed(1)),
    singlesTotalS: Number((singlesMs / 1000).toFixed(1)),
    batchPerImageMs: Math.round(batchMs / ITEMS),
    singlePerImageMs: Math.round(singlesMs / ITEMS),
    speedup: Number((singlesMs / batchMs).toFixed(2)),
  }
  console.table([figures])
  return figures
}
