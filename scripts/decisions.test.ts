import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { INDEX_FILE, indexText, readRecords } from './decisions-index'

describe('decision records', () => {
  const records = readRecords()

  it('each has a numbered title, a date and a status', () => {
    const incomplete = records.filter((r) => !r.title || !r.date || !r.status).map((r) => r.file)
    expect(incomplete).toEqual([])
  })

  it('no two share a number', () => {
    const numbers = records.map((r) => r.number)
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([])
  })

  it('are all in the index (run `npx tsx scripts/decisions-index.ts` after adding one)', () => {
    expect(readFileSync(INDEX_FILE, 'utf8')).toBe(indexText(records))
  })
})
