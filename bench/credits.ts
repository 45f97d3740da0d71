// Ledger throughput: charges per second with 8 concurrent clients, on PGlite (in memory) and on
// PostgreSQL (a schema of its own, dropped afterwards), against a baseline measured in the same run:
// a bare single-row UPDATE of the balance, with no condition, no ledger row and no transaction.
// Two shapes: every client on its own account, and all clients on one hot account (row-lock
// contention). After each run the ledger must still add up to the balance.
//   npx tsx bench/credits.ts            (or npm run bench -- credits)
// BENCH_SECONDS (default 3) sets each measurement's length; TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test) the PostgreSQL server; it is skipped when unreachable.
import { randomUUID } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import { createPGliteHandle, createPostgresHandle, pgliteOptions, type DB, type DatabaseHandle } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import { charge, grant } from '../app/features/credits/ledger.server'

const CLIENTS = 8
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const FUNDS = 10_000_000

interface Measurement {
  ops: number
  seconds: number
  perSecond: number
  p50Ms: number
  p95Ms: number
}

interface BackendFigures {
  backend: 'pglite' | 'postgres'
  baselineUpdate: Measurement
  chargeOwnAccounts: Measurement
  chargeSharedAccount: Measurement
  chargeVsBaseline: number
  sharedVsOwn: number
  ledgerConsistent: boolean
}

async function createAccount(db: DB): Promise<string> {
  const visitor = await db.insertInto('visitors').defaultValues().returning('id').executeTakeFirstOrThrow()
  const account = await db
    .insertInto('credit_accounts')
    .values({ visitor_id: visitor.id, balance: 0, last_refresh_day: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  await grant({ accountId: account.id, amount: FUNDS, kind: 'adjustment', description: 'Benchmark funds' }, db)
  return account.id
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** CLIENTS loops, each issuing one operation after another for SECONDS. */
async function measure(operation: (client: number) => Promise<unknown>): Promise<Measurement> {
  const latencies: number[] = []
  const deadline = performance.now() + SECONDS * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < deadline) {
        const t0 = performance.now()
        await operation(client)
        latencies.push(performance.now() - t0)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    ops: latencies.length,
    seconds: round(seconds, 2),
    perSecond: round(latencies.length / seconds, 0),
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
  }
}

function round(n: number, digits: number): number {
  const f = 10 ** digits
  return Math.round(n * f) / f
}

async function ledgerAddsUp(db: DB): Promise<boolean> {
  const mismatches = await sql<{ n: number }>`
    select count(*)::int as n from credit_accounts a
    where a.balance <> (select coalesce(sum(delta), 0) from credit_transactions t where t.account_id = a.id)
  `.execute(db)
  return mismatches.rows[0].n === 0
}

async function benchBackend(backend: BackendFigures['backend'], handle: DatabaseHandle): Promise<BackendFigures> {
  const db = handle.db
  const own = await Promise.all(Array.from({ length: CLIENTS }, () => createAccount(db)))
  const shared = await createAccount(db)
  const baselineAccounts = await Promise.all(Array.from({ length: CLIENTS }, () => createAccount(db)))

  // Warm up connections and plans so the first measurement is not penalised.
  for (const accountId of own) await charge({ accountId, amount: 1, toolSlug: 'warm_up', idempotencyKey: randomUUID() }, db)

  const baselineUpdate = await measure((client) =>
    db
      .updateTable('credit_accounts')
      .set((eb) => ({ balance: eb('balance', '-', 1) }))
      .where('id', '=', baselineAccounts[client])
      .execute(),
  )
  const chargeOwnAccounts = await measure(async (client) => {
    const result = await charge({ accountId: own[client], amount: 1, toolSlug: 'bench', idempotencyKey: randomUUID() }, db)
    if (!result.ok) throw new Error('benchmark account ran dry')
  })
  const chargeSharedAccount = await measure(async () => {
    const result = await charge({ accountId: shared, amount: 1, toolSlug: 'bench', idempotencyKey: randomUUID() }, db)
    if (!result.ok) throw new Error('benchmark account ran dry')
  })
  // The baseline bypasses the ledger on purpose; only the charged accounts must add up.
  await db.deleteFrom('credit_accounts').where('id', 'in', baselineAccounts).execute()
  return {
    backend,
    baselineUpdate,
    chargeOwnAccounts,
    chargeSharedAccount,
    chargeVsBaseline: round(chargeOwnAccounts.perSecond / baselineUpdate.perSecond, 2),
    sharedVsOwn: round(chargeSharedAccount.perSecond / chargeOwnAccounts.perSecond, 2),
    ledgerConsistent: await ledgerAddsUp(db),
  }
}

async function onPGlite(): Promise<BackendFigures> {
  const handle = createPGliteHandle(new PGlite(pgliteOptions()))
  try {
    await migrateToLatest(handle.db)
    return await benchBackend('pglite', handle)
  } finally {
    await handle.db.destroy()
  }
}

async function onPostgres(): Promise<BackendFigures | { backend: 'postgres'; skipped: string }> {
  const schema = `bench_credits_${process.pid}_${Date.now()}`
  const admin = createPostgresHandle(POSTGRES_URL, 1)
  try {
    await sql`create schema ${sql.id(schema)}`.execute(admin.db)
  } catch (error) {
    await admin.db.destroy()
    return { backend: 'postgres', skipped: `PostgreSQL unreachable at ${POSTGRES_URL}: ${(error as Error).message}` }
  }
  const handle = createPostgresHandle(POSTGRES_URL, CLIENTS, schema)
  try {
    await migrateToLatest(handle.db, { schema })
    return await benchBackend('postgres', handle)
  } finally {
    await handle.db.destroy()
    await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db)
    await admin.db.destroy()
  }
}

function printTable(results: Array<BackendFigures | { backend: string; skipped: string }>): void {
  const rows: Record<string, Record<string, string | number>> = {}
  for (const r of results) {
    if ('skipped' in r) {
      console.log(`${r.backend}: skipped (${r.skipped})`)
      continue
    }
    for (const [name, m] of [
      ['baseline UPDATE', r.baselineUpdate],
      ['charge, own accounts', r.chargeOwnAccounts],
      ['charge, one shared account', r.chargeSharedAccount],
    ] as const) {
      rows[`${r.backend}: ${name}`] = { 'ops/s': m.perSecond, ops: m.ops, 'p50 ms': m.p50Ms, 'p95 ms': m.p95Ms }
    }
    console.log(
      `${r.backend}: charge/baseline ${r.chargeVsBaseline}, shared/own ${r.sharedVsOwn}, ledger adds up: ${r.ledgerConsistent}`,
    )
  }
  console.table(rows)
}

export async function benchCredits(): Promise<object> {
  console.log(`Credits ledger: ${CLIENTS} concurrent clients, ${SECONDS} s per measurement`)
  const results = [await onPGlite(), await onPostgres()]
  printTable(results)
  return { clients: CLIENTS, secondsPerMeasurement: SECONDS, results }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchCredits()
  process.exit(0)
}
