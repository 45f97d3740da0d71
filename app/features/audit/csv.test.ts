import { describe, expect, it } from 'vitest'
import { csvCell, csvLine } from './csv'

describe('csvCell', () => {
  it('neutralises cells a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil")')).toBe(`"'=HYPERLINK(""http://evil"")"`)
    expect(csvCell('+1')).toBe("'+1")
    expect(csvCell('-2+3')).toBe("'-2+3")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\tcmd')).toBe("'\tcmd")
  })

  it('quotes commas, quotes and line breaks, and leaves plain text alone', () => {
    expect(csvCell('plain text')).toBe('plain text')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('mid=dle')).toBe('mid=dle')
  })

  it('writes numbers, nulls, dates and objects', () => {
    expect(csvCell(12)).toBe('12')
    expect(csvCell(null)).toBe('')
    expect(csvCell(new Date('2026-11-24T10:00:00Z'))).toBe('2026-11-24T10:00:00.000Z')
    expect(csvCell({ amount: 5, reason: 'x' })).toBe('"{""amount"":5,""reason"":""x""}"')
  })

  it('ends a line with CRLF', () => {
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n')
  })
})
