import { describe, expect, it } from 'vitest'
import { headroomOf, headroomText, overCapText, passesCap } from './headroom'

describe('cap headroom', () => {
  it('is what is left of the cap, never below zero', () => {
    expect(headroomOf(10, 3)).toEqual({ limit: 10, used: 3, left: 7 })
    expect(headroomOf(5, 9)).toEqual({ limit: 5, used: 9, left: 0 })
  })

  it('says a run passes the cap only when it costs more than is left (no cap: never)', () => {
    expect(passesCap(headroomOf(10, 8), 2)).toBe(false)
    expect(passesCap(headroomOf(10, 9), 2)).toBe(true)
    expect(passesCap(headroomOf(0, 0), 1)).toBe(true)
    expect(passesCap(null, 1_000)).toBe(false)
    expect(passesCap(undefined, 1_000)).toBe(false)
  })

  it('words the headroom and the refusal with the numbers', () => {
    expect(headroomText('Acme', headroomOf(10, 7))).toBe('Your monthly cap on Acme: 3 of 10 credits left.')
    expect(headroomText('Acme', headroomOf(1, 1))).toBe('Your monthly cap on Acme: 0 of 1 credit left.')
    expect(overCapText('Acme', headroomOf(10, 9), 2)).toBe(
      'This run costs 2 credits and 1 credit of your monthly cap on Acme is left (9 of 10 used). It resets on the 1st (UTC); a team owner or admin can raise it. Meanwhile you can run it on your own credits.',
    )
    // The batch screen prices the batch, or each file before any is chosen.
    expect(overCapText('Acme', headroomOf(2, 0), 3, 'batch')).toBe(
      'This batch costs 3 credits and 2 credits of your monthly cap on Acme are left (0 of 2 used). It resets on the 1st (UTC); a team owner or admin can raise it. Meanwhile you can run it on your own credits.',
    )
    expect(overCapText('Acme', headroomOf(2, 2), 1, 'file')).toMatch(/^Each file costs 1 credit and 0 credits .* Meanwhile you can run the batch on your own credits\.$/)
  })
})
