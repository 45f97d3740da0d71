// npm run models: installs the model files listed in models/manifest.json into MODELS_DIR.
//   npx tsx scripts/install-models.ts                 every model with a source (required and optional)
//   npx tsx scripts/install-models.ts --if-missing    required models only, plus optional ones found in MODELS_FROM;
//                                                     exits 0 at once when everything required is installed and valid
//   MODELS_FROM=/path/to/folder                       copy files from a folder instead of downloading
//   yunet u2netp  (or --only yunet,u2netp)            limit to these ids: `npm run models -- birefnet-lite`
//                                                     installs that one model (an optional one is downloaded)
//   --required                                        every model asked for must end installed: an optional one
//                                                     that cannot be had (no network, no source) fails the run
//                                                     (exit 1) instead of being skipped (the image's QUALITY_MODELS)
// A file is written to <name>.tmp, checked (sha256 when pinned, and always its onnx signature) and only then
// renamed into place. Exit code 1 when a required model could not be installed.
import { copyFile, mkdir, rename, rm } from 'node:fs/promises'
import { createWriteStream, existsSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { config } from '../app/config.server'
import { MODELS, type ModelEntry } from '../app/features/tools/models/manifest'
import { checkModelFile, type FileCheck } from '../app/features/tools/models/verify.server'

const INSTALL_COMMAND = 'npm run models'
const CONNECT_TIMEOUT_MS = 30_000
const IDLE_TIMEOUT_MS = 60_000

type Outcome = 'ok' | 'installed' | 'skipped' | 'failed'
interface Row {
  entry: ModelEntry
  outcome: Outcome
  detail: string
}

/** The flags, and the ids asked for (bare words and --only's list together); unknown ids are an error. */
function parseArgs(argv: string[]): { ifMissing: boolean; required: boolean; only: Set<string> | null } {
  const ifMissing = argv.includes('--if-missing')
  const required = argv.includes('--required')
  const onlyIndex = argv.indexOf('--only')
  const listed = onlyIndex >= 0 ? (argv[onlyIndex + 1] ?? '').split(',') : []
  const bare = argv.filter((arg, i) => !arg.startsWith('--') && !(onlyIndex >= 0 && i === onlyIndex + 1))
  const ids = [...listed, ...bare].map((id) => id.trim()).filter(Boolean)
  const unknown = ids.filter((id) => !MODELS.some((m) => m.id === id))
  if (unknown.length > 0) throw new UsageError(`Unknown model id ${unknown.map((id) => `"${id}"`).join(', ')}: the ids are ${MODELS.map((m) => m.id).join(', ')}.`)
  return { ifMissing, required, only: onlyIndex >= 0 || ids.length > 0 ? new Set(ids) : null }
}

class UsageError extends Error {}

async function download(url: string, target: string): Promise<void> {
  const controller = new AbortController()
  let timer = setTimeout(() => controller.abort(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS)
  let response: Response
  try {
    response = await fetch(url, { signal: controller.signal, redirect: 'follow' })
  } catch (error) {
    clearTimeout(timer)
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new Error(`cannot reach ${new URL(url).host} (${cause?.code ?? cause?.message ?? (error as Error).message})`)
  }
  clearTimeout(timer)
  if (!response.ok || !response.body) throw new Error(`download answered HTTP ${response.status} ${response.statusText}`)
  const total = Number(response.headers.get('content-length') ?? 0)
  let received = 0
  let lastReport = 0
  const restartIdle = () => {
    clearTimeout(timer)
    timer = setTimeout(() => controller.abort(new Error(`download stalled for ${IDLE_TIMEOUT_MS / 1000} s`)), IDLE_TIMEOUT_MS)
  }
  restartIdle()
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream)
  body.on('data', (chunk: Buffer) => {
    received += chunk.length
    restartIdle()
    if (total > 20e6 && received - lastReport > 20e6) {
      lastReport = received
      process.stdout.write(`    ${(received / 1e6).toFixed(0)} / ${(total / 1e6).toFixed(0)} MB\n`)
    }
  })
  try {
    await pipeline(body, createWriteStream(target))
  } catch (error) {
    throw new Error(`download failed: ${controller.signal.aborted ? String(controller.signal.reason) : (error as Error).message}`)
  } finally {
    clearTimeout(timer)
  }
}

function checkSummary(check: FileCheck): string {
  return check.hashPinned ? 'sha256 pinned, signature ok' : 'signature ok (no pinned sha256)'
}

async function installOne(entry: ModelEntry, modelsDir: string, from: string | undefined, ifMissing: boolean): Promise<Row> {
  const target = path.join(modelsDir, entry.file)
  if (existsSync(target)) {
    // An installed copy is kept when it is intact; a copy with an unpinned hash is accepted on signature alone.
    const check = await checkModelFile(entry, target, { allowUnpinned: true })
    const hashMismatch = check.problems.length === 0 && !check.hashPinned && entry.sha256 && !entry.url
    if (check.ok && !hashMismatch) return { entry, outcome: 'ok', detail: `already installed, ${checkSummary(check)}` }
    process.stdout.write(`  ${entry.id}: installed file is not valid (${check.problems.join('; ') || 'unknown hash'}), reinstalling\n`)
  }

  const localCopy = from ? path.join(from, entry.file) : null
  const source = localCopy && existsSync(localCopy) ? { kind: 'folder' as const, where: localCopy } : entry.url ? { kind: 'url' as const, where: entry.url } : null
  if (!source) {
    const why = from ? `not in ${from} and no public download` : 'no public download; install it with MODELS_FROM=<folder>'
    return { entry, outcome: entry.optional ? 'skipped' : 'failed', detail: why }
  }
  // Large optional upgrades are not fetched by the quick test-time install.
  if (ifMissing && entry.optional && source.kind === 'url') {
    return { entry, outcome: 'skipped', detail: `optional, not installed (run \`${INSTALL_COMMAND}\` to download it)` }
  }

  const temporary = `${target}.tmp`
  try {
    // With MODELS_FROM set, a file that is not in the folder is downloaded: say so before trying.
    const notInFolder = from && source.kind === 'url' ? `not in ${from}; ` : ''
    process.stdout.write(`  ${entry.id}: ${notInFolder}${source.kind === 'folder' ? 'copying' : 'downloading'} ${source.where}\n`)
    if (source.kind === 'folder') await copyFile(source.where, temporary)
    else await download(source.where, temporary)
    // A copy from the vetted folder must match the pinned hash; a download from an unpinned URL is checked by signature.
    const allowUnpinned = source.kind === 'url' ? entry.urlSha256 === null : entry.sha256 === null
    const check = await checkModelFile(entry, temporary, { allowUnpinned })
    if (!check.ok) throw new Error(check.problems.join('; '))
    await rename(temporary, target)
    return { entry, outcome: 'installed', detail: `from ${source.kind === 'folder' ? 'MODELS_FROM' : 'URL'}, ${checkSummary(check)}` }
  } catch (error) {
    await rm(temporary, { force: true })
    const hint = source.kind !== 'url' ? '' : from ? ` (and not in ${from})` : '; offline? Set MODELS_FROM to a folder with the files'
    return { entry, outcome: entry.optional ? 'skipped' : 'failed', detail: `${(error as Error).message}${hint}` }
  }
}

function printTable(rows: Row[]): void {
  const header = ['model', 'file', 'required', 'result', 'license', 'detail']
  const lines = rows.map((r) => [r.entry.id, r.entry.file, r.entry.optional ? 'optional' : 'required', r.outcome, r.entry.license, r.detail])
  const widths = header.map((h, i) => Math.min(40, Math.max(h.length, ...lines.map((l) => l[i].length))))
  const format = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ')
  console.log(format(header))
  console.log(format(widths.map((w) => '-'.repeat(w))))
  for (const line of lines) console.log(format(line))
}

async function main(): Promise<number> {
  const { ifMissing, required, only } = parseArgs(process.argv.slice(2))
  const { modelsDir, MODELS_FROM } = config()
  const from = MODELS_FROM ? path.resolve(MODELS_FROM) : undefined
  if (from && !existsSync(from)) {
    console.error(`MODELS_FROM=${MODELS_FROM}: no such folder`)
    return 1
  }
  await mkdir(modelsDir, { recursive: true })
  console.log(`Models folder: ${modelsDir}${from ? ` (copying from ${from})` : ''}`)
  const rows: Row[] = []
  for (const entry of MODELS) {
    if (only && !only.has(entry.id)) continue
    // A model asked for by name is downloaded even with --if-missing (which otherwise skips optional downloads).
    const row = await installOne(entry, modelsDir, from, ifMissing && !only)
    // With --required an optional model that could not be had is a failure like a required one.
    rows.push(required && row.outcome === 'skipped' ? { ...row, outcome: 'failed' } : row)
  }
  printTable(rows)
  const nonCommercial = rows.filter((r) => !r.entry.commercialUse && r.outcome !== 'skipped')
  for (const r of nonCommercial) {
    console.log(`\nNote: ${r.entry.id} is licensed ${r.entry.license}. ${r.entry.licenseNote} The studio loads it only with ALLOW_NONCOMMERCIAL_MODELS=true.`)
  }
  const failed = rows.filter((r) => r.outcome === 'failed')
  if (failed.length > 0) {
    console.error(
      `\nRequired model(s) not installed: ${failed.map((r) => `${r.entry.id} (${r.entry.file}): ${r.detail}`).join('; ')}.` +
        `\nFix the cause and run \`${INSTALL_COMMAND}\` again (offline: MODELS_FROM=/path/to/folder ${INSTALL_COMMAND}).`,
    )
    return 1
  }
  return 0
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      console.error(error.message)
      process.exit(2)
    }
    console.error(`Model install failed: ${(error as Error).stack ?? error}`)
    process.exit(1)
  },
)
