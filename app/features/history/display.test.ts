import { describe, expect, it } from 'vitest'
import { batchSummary, chargeText, hasUnderway, sizeText, type HistoryEntry } from './display'

describe("history's words", () => {
  it('says what a run kept of its charge', () => {
    expect(chargeText({ credits: 1, state: 'done' })).toBe('1 credit')
    expect(chargeText({ credits: 2, state: 'running' })).toBe('2 credits')
    expect(chargeText({ credits: 0, state: 'no_face' })).toBe('Not charged')
    expect(chargeText({ credits: 0, state: 'failed' })).toBe('Not charged')
    // A batch item not started yet pays when its run starts.
    expect(chargeText({ credits: null, state: 'waiting' })).toBe('Charged when it runs')
  })

  it("gives a run's size in megabytes, with its pixels when known", () => {
    expect(sizeText({ inputBytes: 1_258_291, width: 1200, height: 800 })).toBe('1.20 MB · 1200×800')
    expect(sizeText({ inputBytes: 900, width: null, height: null })).toBe('<0.01 MB')
  })

  it("sums a batch up, naming the files with no face among the done ones", () => {
    expect(batchSummary({ status: 'completed', total: 3, done: 2, failed: 1, noFace: 1 })).toBe('Complete: 2 done (1 with no face found), 1 failed, 3 in all')
    expect(batchSummary({ status: 'running', total: 3, done: 0, failed: 0, noFace: 0 })).toBe('Running: 0 done, 0 failed, 3 in all')
  })

  it('follows the page only while a run or a batch is underway', () => {
    const run = (state: string) => ({ kind: 'run', state }) as unknown as HistoryEntry
    const batch = (status: string) => ({ kind: 'batch', status }) as unknown as HistoryEntry
    expect(hasUnderway([run('done'), run('failed'), batch('completed')])).toBe(false)
    expect(hasUnderway([run('done'), run('waiting')])).toBe(true)
    expect(hasUnderway([run('running')])).toBe(true)
    expect(hasUnderway([batch('running')])).toBe(true)
  })
})
