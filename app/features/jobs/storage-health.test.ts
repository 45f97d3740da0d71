// The storage check readiness reads (docs/decisions/177): a disk-full failure is recognised from each driver's
// words, turned into the run's failure, shown for a while and cleared by the next stored result; the data
// folder's free space is compared with STORAGE_MIN_FREE_MB.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { STORAGE_FAILURE_SHOWN_MS, STORAGE_FULL_MESSAGE, isOutOfSpace, storageCheck, storeFailure, storeSucceeded } from './storage-health.server'

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-storage-'))
const saved = { ...process.env }

beforeAll(() => {
  process.env.DATA_DIR = dataDir
  process.env.STORAGE_MIN_FREE_MB = '0'
  resetConfigForTests()
})
afterAll(() => {
  process.env = saved
  resetConfigForTests()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('storage health', () => {
  it('knows a full disk in the words of PostgreSQL, Node and PGlite, and nothing else', () => {
    // PostgreSQL: could not extend file "pg_tblspc/…": No space left on device (SQLSTATE 53100, disk_full).
    expect(isOutOfSpace(Object.assign(new Error('could not extend file "pg_tblspc/16384/1/16385": No space left on device'), { code: '53100' }))).toBe(true)
    expect(isOutOfSpace(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true)
    expect(isOutOfSpace(new Error('outcome failed', { cause: new Error('ENOSPC: no space left on device, write') }))).toBe(true)
    expect(isOutOfSpace(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(false)
    expect(isOutOfSpace(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(false)
    expect(isOutOfSpace(undefined)).toBe(false)
  })

  it('a failed store fails the run with the storage message and readiness says so, until a result is stored or the time passes', async () => {
    expect(await storageCheck()).toMatchObject({ ok: true })
    expect(storeFailure(new Error('connect ECONNREFUSED'))).toBeNull()
    const failure = storeFailure(Object.assign(new Error('No space left on device'), { code: '53100' }))
    expect(failure).toMatchObject({ status: 503, message: STORAGE_FULL_MESSAGE, outcome: 'failed' })
    const shown = await storageCheck()
    expect(shown).toMatchObject({ ok: false, error: expect.stringContaining('disk is full') })
    // Cleared by itself once the time has passed (a monotonic clock: performance.now()).
    expect(await storageCheck(performance.now() + STORAGE_FAILURE_SHOWN_MS + 1)).toMatchObject({ ok: true })
    storeSucceeded()
    expect(await storageCheck()).toMatchObject({ ok: true })
  })

  it('the data folder under STORAGE_MIN_FREE_MB fails the check, naming the figures; 0 turns it off', async () => {
    const free = (await storageCheck()).freeMb
    expect(free).toBeGreaterThan(0)
    process.env.STORAGE_MIN_FREE_MB = String(free! + 1_000_000)
    resetConfigForTests()
    try {
      expect(await storageCheck()).toMatchObject({ ok: false, error: expect.stringMatching(/^the data folder has \d+ MB free, under STORAGE_MIN_FREE_MB/) })
    } finally {
      process.env.STORAGE_MIN_FREE_MB = '0'
      resetConfigForTests()
    }
  })
})
