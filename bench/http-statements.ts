// Statements per synchronous run, exact and load-independent (issue 19 item 7, docs/decisions/124):
// the production server of bench/http.ts with bench/count-statements.mjs loaded, one run at a time;
// every statement the process sends between a request and a quiet moment after its answer (pg-boss
// completes the job after the answer) is the run's. Background statements (pg-boss supervision)
// can land in a window, so each case runs several times and the fewest is the count; the statements
// of that run are listed, each with when it was sent. Also the server main thread's CPU time per
// run (load-independent, unlike wall-clock figures).
//   npx tsx bench/http-statements.ts   (BENCH_DATABASES, BENCH_DATABASE_URL as bench/http.ts)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { sql } from 'kysely'
import { createPostgresHandle } from '../app/db/db.server'
import { BLUR_ENDPOINT, ICON, onePortrait, percentile, post, startStudio, SVG_ENDPOINT } from './http'
import { runAsScript } from './support'

const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const SETTLE_MS = 400

/**
 * CPU time of the server's main thread (JavaScript, and PGlite's WebAssembly), from the kernel's
 * schedstat (nanoseconds): less moved by other work on the machine than wall-clock time. It counts
 * the settle window too (pg-boss's polls: a fraction of a millisecond each).
 */
function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
}

async function countOn(database: 'pglite' | 'postgres', databaseUrl: string | null) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'facet-statements-'))
  const log = path.join(dir, 'statements.log')
  const studio = await startStudio(databaseUrl, {
    STATEMENT_LOG: log,
    BENCH_SERVER_NODE_OPTIONS: `--import ${path.resolve('bench/count-statements.mjs')}`,
  })
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])
  try {
    const icon = new File([new Uint8Array(readFileSync(`tests/fixtures/svg/${ICON}`))], ICON, { type: 'image/svg+xml' })
    const portrait = await onePortrait()
    const cases: { label: string; endpoint: string; file: File; fields: Record<string, string> }[] = [
      { label: '48 px SVG icon', endpoint: SVG_ENDPOINT, file: icon, fields: { format: 'png', scale: '1' } },
      { label: '1 MP face blur', endpoint: BLUR_ENDPOINT, file: portrait, fields: { blur: '32' } },
    ]
    const results = []
    for (const c of cases) {
      for (let i = 0; i < 2; i++) await post(studio, c.endpoint, c.file, c.fields)
      await new Promise((r) => setTimeout(r, SETTLE_MS))
      const runs: { sent: number; answered: number; cpuMs: number; statements: { at: number; sql: string }[] }[] = []
      for (let i = 0; i < RUNS; i++) {
        const before = lines().length
        const cpuBefore = mainThreadCpuMs(studio.pid)
        const sent = performance.timeOrigin + performance.now()
        await post(studio, c.endpoint, c.file, c.fields)
        const answered = performance.timeOrigin + performance.now()
        await new Promise((r) => setTimeout(r, SETTLE_MS))
        const cpuMs = mainThreadCpuMs(studio.pid) - cpuBefore
        const statements = lines()
          .slice(before)
          .map((line) => ({ at: Number(line.split('\t')[0]), sql: line.split('\t')[1]! }))
        runs.push({ sent, answered, cpuMs, statements })
      }
      const fewest = runs.reduce((a, b) => (b.statements.length < a.statements.length ? b : a))
      const counts = runs.map((r) => r.statements.length)
      const cpuP50 = Math.round(percentile(runs.map((r) => r.cpuMs), 50) * 10) / 10
      results.push({ database, case: c.label, counts, statements: fewest.statements.length, serverMainThreadCpuP50Ms: cpuP50 })
      console.log(`${database}, ${c.label}: ${fewest.statements.length} statements (runs: ${counts.join(', ')}); server main thread CPU p50 ${cpuP50} ms a run`)
      // When each was sent, in ms from the request's start (the answer arrived at the line marked so).
      let answerShown = false
      for (const { at, sql } of fewest.statements) {
        if (!answerShown && at > fewest.answered) {
          console.log(`  ${(fewest.answered - fewest.sent).toFixed(1).padStart(7)}  -- answer received`)
          answerShown = true
        }
        console.log(`  ${(at - fewest.sent).toFixed(1).padStart(7)}  ${sql}`)
      }
      if (!answerShown) console.log(`  ${(fewest.answered - fewest.sent).toFixed(1).padStart(7)}  -- answer received`)
    }
    return results
  } finally {
    await studio.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function benchStatements(): Promise<object> {
  if (process.env.BENCH_BUILD !== '0' || !existsSync(path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js'))) {
    execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] })
  }
  const which = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',')
  const results: object[] = []
  if (which.includes('pglite')) results.push(...(await countOn('pglite', null)))
  if (which.includes('postgres')) {
    const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
    const database = `bench_statements_${process.pid}`
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
    try {
      results.push(...(await countOn('postgres', adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}$1`))))
    } finally {
      await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
      await admin.db.destroy()
    }
  }
  return { results }
}

runAsScript(import.meta.url, benchStatements)
