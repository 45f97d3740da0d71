// The queue's fixed cost, over HTTP end to end (issue 19, item 7; docs/decisions/124): the real
// server (`server.ts`, the production build, web + worker in one process) on PGlite and on
// PostgreSQL, a signed-in client posting to the spec §7 endpoints, against
//   - sharp's own SVG loader (librsvg) at the same pixel count, for every SVG fixture at 1× and 2×:
//     the endpoint's p50 over sharp's, and their geometric mean (goal: at most 1.0×);
//   - the tool called in-process (its runner, in this process): the 48 px SVG icon at 1× and the face
//     blurrer on a 1 MP portrait; the p50 added (goal: at most 15 ms).
// Each pair alternates request by request, so a busy machine slows both alike.
// Short runs inline (docs/decisions/176): every tool at 0.3 MP or less (the icon, a 0.3 MP photo; the
// restorer's 128 px face) over HTTP against its runner in-process, on a server with INLINE_RUN_MS=0
// (before: every run through a pg-boss job, taken where it was admitted: decision 124) and on one with
// the default (after), with the path each run took read from the server's own metrics.
//   npm run bench -- http       (or npx tsx bench/http.ts)
// BENCH_RUNS (default 15) sets the runs per case; PostgreSQL is BENCH_DATABASE_URL, else
// TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test (a database of the run's own is
// created there and dropped after); unreachable, that half is reported as skipped. BENCH_DATABASES=pglite
// (or postgres) measures one.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import sharp from 'sharp'
import { createPostgresHandle } from '../app/db/db.server'
import { runnerFor } from '../app/features/tools/runners/index.server'
// The in-process pipeline keeps what a correction needs, as a run in the studio does: through the wiring's hooks.
import '../app/features/wiring.server'
import type { ToolSlug } from '../app/catalog/tools'
import { FIXTURES, sharpDensityFor } from './svg'
import { freePort, percentile, runAsScript, spawnStudio } from './support'

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
/** BENCH_TOOLS=svg-converter,face-blurrer: the small-run cases measured (default: every tool). */
const BENCH_TOOLS = process.env.BENCH_TOOLS?.split(',').filter(Boolean)
export const ICON = 'tango-internet-web-browser.svg'
export const SVG_ENDPOINT = '/api/svg2image/convert/'
export const BLUR_ENDPOINT = '/api/face-blur/blur/'
/** The megapixels of the small-run cases (issue 33, item 4: every tool at 0.3 MP or less). */
const SMALL_MP = 0.3

export { percentile }
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits

export interface Studio {
  base: string
  /** The server's process id (bench/http-statements.ts reads its CPU time). */
  pid: number
  token: string
  stop: () => Promise<void>
}

/** The production server on a fresh database (PGlite in a temporary DATA_DIR, or `databaseUrl`). */
export async function startStudio(databaseUrl: string | null, extraEnv: Record<string, string> = {}): Promise<Studio> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-bench-http-'))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    RATE_LIMITS: 'false',
    TOOL_QUEUE_LIMIT: '1000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...extraEnv,
  }
  delete env.DATABASE_URL
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (databaseUrl) env.DATABASE_URL = databaseUrl
  const prepared = execFileSync(process.execPath, ['--import', 'tsx', 'bench/http-prepare.ts', '100000'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  const { token } = JSON.parse(prepared.trim().split('\n').pop()!) as { token: string }
  // BENCH_SERVER_NODE_OPTIONS: node options for the server alone (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const nodeOptions = env.BENCH_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []
  const studio = await spawnStudio(env, { waitMs: 300_000, nodeOptions }).catch((error: Error) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  const stop = async () => {
    await studio.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return {
    base: studio.base,
    pid: studio.child.pid!,
    token,
    stop,
  }
}

/** One synchronous run over HTTP; throws unless it delivered. */
export async function post(studio: Studio, endpoint: string, file: File, fields: Record<string, string>): Promise<Buffer> {
  const form = new FormData()
  form.append(endpoint === SVG_ENDPOINT ? 'svg' : 'image', file)
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const response = await fetch(studio.base + endpoint, { method: 'POST', body: form, headers: { authorization: `Token ${studio.token}` } })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`${endpoint} answered ${response.status}: ${body.toString('utf8').slice(0, 300)}`)
  return body
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now()
  const value = await work()
  return [performance.now() - started, value]
}

/** Every SVG fixture at 1× and 2×: the endpoint against sharp's loader at the same pixel count. */
async function svgAgainstSharp(studio: Studio) {
  const cases = []
  for (const fixture of FIXTURES) {
    const bytes = readFileSync(`tests/fixtures/svg/${fixture}`)
    const file = new File([new Uint8Array(bytes)], fixture, { type: 'image/svg+xml' })
    for (const scale of [1, 2]) {
      const fields = { format: 'png', scale: String(scale) }
      const first = await post(studio, SVG_ENDPOINT, file, fields)
      const { width, height } = await sharp(first).metadata()
      const density = await sharpDensityFor(bytes, width! * height!)
      const bySharp = () => sharp(bytes, { density, limitInputPixels: false }).png().toBuffer()
      await bySharp()
      const endpoint: number[] = []
      const librsvg: number[] = []
      for (let i = 0; i < RUNS; i++) {
        endpoint.push((await timed(() => post(studio, SVG_ENDPOINT, file, fields)))[0])
        librsvg.push((await timed(bySharp))[0])
      }
      const ratio = percentile(endpoint, 50) / percentile(librsvg, 50)
      cases.push({
        fixture,
        scale: `${scale}x`,
        output: `${width}×${height}`,
        endpointP50Ms: round(percentile(endpoint, 50)),
        endpointP95Ms: round(percentile(endpoint, 95)),
        sharpP50Ms: round(percentile(librsvg, 50)),
        endpointOverSharp: round(ratio, 2),
      })
    }
  }
  const geometricMean = Math.exp(cases.reduce((sum, c) => sum + Math.log(c.endpointP50Ms / c.sharpP50Ms), 0) / cases.length)
  return { cases, geometricMean: round(geometricMean, 2) }
}

/** A synchronous run over HTTP against the same tool's runner called in this process. */
async function addedOverInProcess(studio: Studio, label: string, tool: ToolSlug, endpoint: string, file: File, fields: Record<string, string>) {
  const runner = runnerFor(tool)
  const bytes = Buffer.from(await file.arrayBuffer())
  const options = await runner.parseOptions(fields)
  const inProcess = () => runner.run({ bytes, options: options as never, signal: new AbortController().signal, progress: () => {} })
  await inProcess()
  await post(studio, endpoint, file, fields)
  const direct: number[] = []
  const overHttp: number[] = []
  for (let i = 0; i < RUNS; i++) {
    direct.push((await timed(inProcess))[0])
    overHttp.push((await timed(() => post(studio, endpoint, file, fields)))[0])
  }
  return {
    case: label,
    inProcessP50Ms: round(percentile(direct, 50)),
    httpP50Ms: round(percentile(overHttp, 50)),
    addedP50Ms: round(percentile(overHttp, 50) - percentile(direct, 50)),
    inProcessP95Ms: round(percentile(direct, 95)),
    httpP95Ms: round(percentile(overHttp, 95)),
  }
}

/** A photo fixture resized to `megapixels` (never enlarged), as a JPEG upload. */
async function photoAt(fixture: string, megapixels: number): Promise<File> {
  const path = `tests/fixtures/photos/${fixture}`
  const { width, height } = await sharp(path).metadata()
  const scale = Math.min(1, Math.sqrt((megapixels * 1_000_000) / (width! * height!)))
  const bytes = await sharp(path).resize(Math.round(width! * scale), Math.round(height! * scale)).jpeg({ quality: 90 }).toBuffer()
  return new File([new Uint8Array(bytes)], fixture.replace(/\.\w+$/, '.jpg'), { type: 'image/jpeg' })
}

/** The runs the server counted by tool and path (its /metrics, open to loopback). */
async function runsByPath(studio: Studio, tool: string): Promise<{ inline: number; queue: number }> {
  const text = await fetch(`${studio.base}/metrics`).then((r) => (r.ok ? r.text() : ''), () => '')
  const count = (path: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('facet_tool_runs_total{') && line.includes(`tool="${tool}"`) && line.includes(`path="${path}"`))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0)
  return { inline: count('inline'), queue: count('queue') }
}

interface SmallCase {
  tool: ToolSlug
  endpoint: string
  file: () => Promise<File>
  fields: Record<string, string>
}

const SMALL_CASES: SmallCase[] = [
  { tool: 'svg-converter', endpoint: SVG_ENDPOINT, file: async () => new File([new Uint8Array(readFileSync(`tests/fixtures/svg/${ICON}`))], ICON, { type: 'image/svg+xml' }), fields: { format: 'png', scale: '1' } },
  { tool: 'face-blurrer', endpoint: BLUR_ENDPOINT, file: () => photoAt('portrait-astronaut.png', SMALL_MP), fields: { blur: '32' } },
  { tool: 'background-remover', endpoint: '/api/remove-bg/', file: () => photoAt('product-gameboy-white-bg.jpg', SMALL_MP), fields: {} },
  { tool: 'face-restorer', endpoint: '/api/face-retouch/restore/', file: () => photoAt('degraded-face-astronaut-128px-q35.jpg', SMALL_MP), fields: {} },
  { tool: 'image-enhancer', endpoint: '/api/image-scaler/scale/', file: () => photoAt('noface-rocket.jpg', SMALL_MP), fields: {} },
]

/** Every tool at 0.3 MP or less: over HTTP against in-process, and the path the server took. */
async function smallRuns(studio: Studio) {
  const rows = []
  for (const small of SMALL_CASES) {
    if (BENCH_TOOLS && !BENCH_TOOLS.includes(small.tool)) continue
    const before = await runsByPath(studio, small.tool)
    const measured = await addedOverInProcess(studio, small.tool, small.tool, small.endpoint, await small.file(), small.fields)
    const after = await runsByPath(studio, small.tool)
    rows.push({
      ...measured,
      httpOverInProcess: round(measured.httpP50Ms / measured.inProcessP50Ms, 2),
      inlineRuns: after.inline - before.inline,
      queueRuns: after.queue - before.queue,
    })
  }
  return rows
}

export async function onePortrait(): Promise<File> {
  const bytes = await sharp('tests/fixtures/photos/portrait-astronaut.png')
    .metadata()
    .then(({ width, height }) => {
      const scale = Math.sqrt(1_000_000 / (width! * height!))
      return sharp('tests/fixtures/photos/portrait-astronaut.png')
        .resize(Math.round(width! * scale), Math.round(height! * scale))
        .jpeg({ quality: 90 })
        .toBuffer()
    })
  return new File([new Uint8Array(bytes)], 'portrait.jpg', { type: 'image/jpeg' })
}

async function benchOn(database: 'pglite' | 'postgres', databaseUrl: string | null) {
  // Before: every synchronous run through a pg-boss job (taken where it was admitted, decision 124).
  const queued = await startStudio(databaseUrl, { INLINE_RUN_MS: '0' })
  let beforeRuns
  try {
    beforeRuns = await smallRuns(queued)
    console.table(beforeRuns)
  } finally {
    await queued.stop()
  }
  // After: short runs inline (decision 176), the default threshold. A fresh database for each server.
  const studio = await startStudio(databaseUrl && (await freshDatabase(databaseUrl)))
  try {
    const afterRuns = await smallRuns(studio)
    console.table(afterRuns)
    const compared = afterRuns.map((after) => {
      const before = beforeRuns.find((b) => b.case === after.case)!
      return {
        tool: after.case,
        inProcessP50Ms: after.inProcessP50Ms,
        beforeHttpOverInProcess: before.httpOverInProcess,
        afterHttpOverInProcess: after.httpOverInProcess,
        beforeAddedP50Ms: before.addedP50Ms,
        afterAddedP50Ms: after.addedP50Ms,
        afterPath: after.inlineRuns > 0 && after.queueRuns === 0 ? 'inline' : after.queueRuns > 0 && after.inlineRuns === 0 ? 'queue' : 'mixed',
      }
    })
    console.table(compared)
    console.log(`${database}: every tool at ≤ ${SMALL_MP} MP, HTTP p50 / in-process p50 before → after (goal ≤ 1.3×), added p50 per inline run (goal ≤ 5 ms)`)
    const svg = process.env.BENCH_SVG === '0' ? null : await svgAgainstSharp(studio)
    if (svg) {
      console.table(svg.cases)
      console.log(`${database}: endpoint / sharp p50, geometric mean over the SVG fixtures at 1× and 2×: ${svg.geometricMean}× (goal ≤ 1.2×)`)
    }
    return { database, smallRuns: compared, before: beforeRuns, after: afterRuns, svgOverSharpGeometricMean: svg?.geometricMean ?? null, svg: svg?.cases ?? null }
  } finally {
    await studio.stop()
  }
}

/** On PostgreSQL each server gets a database of its own: the second is made beside the first (dropped with the run's). */
const extraDatabases: string[] = []
async function freshDatabase(databaseUrl: string): Promise<string> {
  const name = `${new URL(databaseUrl).pathname.slice(1)}_after`
  const admin = createPostgresHandle(databaseUrl, 1)
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin.db)
  await admin.db.destroy()
  extraDatabases.push(name)
  return databaseUrl.replace(/\/[^/?]*(\?.*)?$/, `/${name}$1`)
}

/** The server runs the production build: built now, so it is this checkout's (BENCH_BUILD=0 skips it when one exists). */
export function buildForBench(): void {
  if (process.env.BENCH_BUILD !== '0' || !existsSync(path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js'))) {
    execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] })
  }
}

export async function benchHttp(): Promise<object> {
  buildForBench()
  const which = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',')
  const results: object[] = []
  if (which.includes('pglite')) results.push(await benchOn('pglite', null))
  if (which.includes('postgres')) {
    const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
    const database = `bench_http_${process.pid}`
    const admin = createPostgresHandle(adminUrl, 1)
    const reachable = await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db).then(
      () => true,
      (error: Error) => {
        console.log(`postgres: skipped (${error.message})`)
        results.push({ database: 'postgres', skipped: error.message })
        return false
      },
    )
    try {
      if (reachable) results.push(await benchOn('postgres', adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}$1`)))
    } finally {
      if (reachable) await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
      for (const extra of extraDatabases) await sql`DROP DATABASE IF EXISTS ${sql.id(extra)} WITH (FORCE)`.execute(admin.db)
      await admin.db.destroy()
    }
  }
  return { runs: RUNS, loadAverage: os.loadavg().map((l) => round(l)), results }
}

runAsScript(import.meta.url, benchHttp)
