// npm run bench [-- credits tools svg jobs batches quality corrections brush outputs slow-link [--seed N --count M]]: runs the benchmarks, prints their tables and saves the figures to
// bench/results/<timestamp>.json. Each part compares against a baseline measured in the same process.
// `npm run bench -- soak [--minutes 10 --rate 0.1]`: a real studio on PostgreSQL (web + two workers) under a steady
// rate of mixed runs: latency per tool and path, memory slopes, the ledger checked at the end (bench/soak.ts; not in
// the default set: it runs for minutes).
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const parts: Record<string, () => Promise<object>> = {
  credits: async () => (await import('./credits')).benchCredits(),
  tools: async () => (await import('./tools')).benchTools(),
  svg: async () => (await import('./svg')).benchSvg(),
  jobs: async () => (await import('./jobs')).benchJobs(),
  http: async () => (await import('./http')).benchHttp(),
  batches: async () => (await import('./batches')).benchBatches(),
  quality: async () => (await import('./quality')).benchQuality(),
  corrections: async () => (await import('./corrections')).benchCorrections(),
  brush: async () => (await import('./brush')).benchBrush(),
  outputs: async () => (await import('./outputs')).benchOutputs(),
  soak: async () => (await import('./soak')).benchSoak(),
  'slow-link': async () => (await import('./slow-link')).benchSlowLink(),
}
/** Parts run only when named: the soak runs for minutes. */
const ON_REQUEST = ['soak']

// Parts are named; `--name value` pairs are a part's own settings (quality's --seed and --count).
const isSetting = (a: string | undefined) => !!a && a.startsWith('--') && a !== '--'
const wanted = process.argv.slice(2).filter((a, i, all) => a !== '--' && !isSetting(a) && !isSetting(all[i - 1]))
const selected = wanted.length ? wanted : Object.keys(parts).filter((name) => !ON_REQUEST.includes(name))
const unknown = selected.filter((name) => !(name in parts))
if (unknown.length) {
  console.error(`Unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(parts).join(', ')}`)
  process.exit(2)
}

const report: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
}
for (const name of selected) {
  console.log(`\n=== ${name}`)
  report[name] = await parts[name]()
}

const dir = path.resolve('bench/results')
mkdirSync(dir, { recursive: true })
const file = path.join(dir, `${report.startedAt as string}.json`.replace(/:/g, '-'))
writeFileSync(file, JSON.stringify(report, null, 2))
console.log(`\nSaved ${path.relative(process.cwd(), file)}`)
process.exit(0)
