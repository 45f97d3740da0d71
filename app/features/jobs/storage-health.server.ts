// Whether results can be stored (docs/decisions/177). A result lives in the database (results.server.ts):
// on PGlite that is DATA_DIR's disk, on PostgreSQL the server's. A disk that fills up fails the outcome's
// transaction, so the run is failed with STORAGE_FULL_MESSAGE (and refunded, or never charged) instead of a
// tool's generic failure, and readiness says why until a result is stored again. Two signs, both cheap:
// - the last attempt to store a result here failed for lack of space (PostgreSQL's disk_full, ENOSPC), less
//   than STORAGE_FAILURE_SHOWN_MS ago (a monotonic clock: a wall-clock jump neither hides nor prolongs it)
//   and no result stored since; it clears by itself, so a process that stores nothing is not kept out for good;
// - DATA_DIR's filesystem has less than STORAGE_MIN_FREE_MB free (statfs; 0 turns it off): PGlite's database,
//   the mail outbox and the secrets live there.
import { statfs } from 'node:fs/promises'
import path from 'node:path'
import { config } from '~/config.server'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'
import { ToolError } from './errors.server'

export const STORAGE_FULL_MESSAGE = "The studio's storage is full, so your result could not be kept. You were not charged for it; please try again later."
/** How long a failed store keeps readiness at 503 when nothing is stored after it. */
export const STORAGE_FAILURE_SHOWN_MS = 60_000

/** PostgreSQL's SQLSTATE class 53 (insufficient resources): disk_full, and out of memory/connections beside it. */
const DISK_FULL_SQLSTATE = '53100'

/** Whether `error` (a driver's, PGlite's or the file system's) says the disk is full. */
export function isOutOfSpace(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === DISK_FULL_SQLSTATE || e.code === 'ENOSPC') return true
    if (typeof e.message === 'string' && /no space left on device|disk full/i.test(e.message)) return true
  }
  return false
}

interface StoreState {
  /** performance.now() of the last store that failed for lack of space, and its error. */
  failedAt: number | null
  error: string | null
}

const state = () => singleton<StoreState>('result-store-state', () => ({ failedAt: null, error: null }))

/** The outcome's transaction failed: when for lack of space, remembered and turned into the run's failure. */
export function storeFailure(error: unknown): ToolError | null {
  if (!isOutOfSpace(error)) return null
  const message = (error as Error).message
  Object.assign(state(), { failedAt: performance.now(), error: message })
  logger.error({ err: message }, 'result not stored: the disk is full')
  return new ToolError(503, STORAGE_FULL_MESSAGE, { outcome: 'failed', cause: error })
}

/** A result was stored: the disk has room again. */
export function storeSucceeded(): void {
  const current = state()
  if (current.failedAt !== null) Object.assign(current, { failedAt: null, error: null })
}

export interface StorageCheck {
  ok: boolean
  error?: string
  /** DATA_DIR's free space, in MB (null when it could not be read). */
  freeMb: number | null
}

/** Free space on the filesystem that holds `folder` (or would: a folder not made yet is on its parent's). */
async function freeMegabytes(folder: string): Promise<number | null> {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const found = await statfs(dir).catch(() => null)
    if (found) return Math.floor((found.bavail * found.bsize) / (1024 * 1024))
    if (dir === path.dirname(dir)) return null
  }
}

/** The readiness check: a recent store that failed for lack of space, or DATA_DIR under its floor. */
export async function storageCheck(now = performance.now()): Promise<StorageCheck> {
  const c = config()
  const free = await freeMegabytes(c.dataDir)
  const { failedAt, error } = state()
  if (failedAt !== null && now - failedAt < STORAGE_FAILURE_SHOWN_MS) {
    return { ok: false, freeMb: free, error: `results cannot be stored: the disk is full (${error})` }
  }
  if (c.STORAGE_MIN_FREE_MB > 0 && free !== null && free < c.STORAGE_MIN_FREE_MB) {
    return { ok: false, freeMb: free, error: `the data folder has ${free} MB free, under STORAGE_MIN_FREE_MB (${c.STORAGE_MIN_FREE_MB})` }
  }
  return { ok: true, freeMb: free }
}
