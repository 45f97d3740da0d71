// docs/decisions/README.md: the index of decision records, written from their titles, dates and status.
// `npx tsx scripts/decisions-index.ts` rewrites it; scripts/decisions.test.ts fails when it is stale or a
// record lacks its Date or Status line.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export const DECISIONS_DIR = path.resolve(import.meta.dirname, '..', 'docs', 'decisions')
export const INDEX_FILE = path.join(DECISIONS_DIR, 'README.md')
const RECORD = /^(\d{3})-.+\.md$/

export interface DecisionRecord {
  file: string
  number: string
  title: string
  date: string | null
  status: string | null
}

export function readRecords(): DecisionRecord[] {
  return readdirSync(DECISIONS_DIR)
    .filter((name) => RECORD.test(name))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(DECISIONS_DIR, file), 'utf8')
      const heading = /^# (\d{3})[:.] (.+)$/m.exec(text)
      return {
        file,
        number: RECORD.exec(file)![1],
        title: heading?.[2].trim() ?? '',
        date: /^Date: (\d{4}-\d{2}-\d{2})\s*$/m.exec(text)?.[1] ?? null,
        status: /^Status: (.+)$/m.exec(text)?.[1].trim() ?? null,
      }
    })
}

export function indexText(records: DecisionRecord[]): string {
  const rows = records.map((r) => `| [${r.number}](${r.file}) | ${r.title.replace(/\|/g, '\\|')} | ${r.date ?? ''} | ${(r.status ?? '').replace(/\|/g, '\\|')} |`)
  return [
    '# Decision records',
    '',
    'Why things are the way they are. A new record copies [template.md](template.md) and takes the next free',
    'number; a reversal is a new record that supersedes the old one. This index is written by',
    '`npx tsx scripts/decisions-index.ts` (the suite fails when it is stale).',
    '',
    '| # | Decision | Date | Status |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(INDEX_FILE, indexText(readRecords()))
  console.log(`wrote ${path.relative(process.cwd(), INDEX_FILE)}`)
}
