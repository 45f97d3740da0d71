// The enhancer's model for a denoise strength d: Real-ESRGAN general (d = 1) and its weak-denoise twin
// (d = 0) as installed, and anything between as a weight blend of the two (dni.server.ts). Blended
// sessions cost about 16 MB each and some 200 ms to build, so a few levels are kept (LRU) and the
// strength is quantised to steps of 0.1: eleven models at most, never one per request.
import { readFile } from 'node:fs/promises'
import { singleton } from '~/utils/singleton.server'
import { blendModels } from './dni.server'
import { isModelInstalled, loadModel, modelPath, openSession, type LoadedModel } from './registry.server'
import { SR_MODEL } from './super-resolution.server'

export const WDN_MODEL = 'realesr-general-wdn-x4v3'
/** Real-ESRGAN's own default for this pair (docs/decisions/014-enhancer-denoise.md). */
export const DEFAULT_DENOISE = 0.5
export const DENOISE_STEP = 0.1
/** Blended levels kept open at once. */
export const BLENDED_SESSIONS = 3
export const WDN_MISSING_NOTE = 'The weak-denoise model is not installed, so the enhancer used full denoise strength (1).'

/** d clamped to 0..1 and rounded to the nearest step of 0.1. */
export function quantiseDenoise(denoise: number): number {
  const clamped = Math.min(1, Math.max(0, denoise))
  return Math.round(clamped / DENOISE_STEP) / Math.round(1 / DENOISE_STEP)
}

export interface SrModelLease {
  model: LoadedModel
  /** The strength actually used (quantised; 1 when the wdn model is missing). */
  denoise: number
  /** Something the caller should be told, such as a missing wdn model. */
  note: string | null
  /** Call when the run is over: an evicted session is released only once nobody uses it. */
  done(): void
}

interface BlendedEntry {
  pending: Promise<LoadedModel>
  /** The model once built (to see whether its inference thread has stopped since). */
  model?: LoadedModel
  users: number
  evicted: boolean
}

const blended = singleton('sr-blended-sessions', () => new Map<string, BlendedEntry>())

function releaseWhenIdle(entry: BlendedEntry): void {
  if (!entry.evicted || entry.users > 0) return
  entry.pending.then(
    (model) => model.session.release(),
    () => undefined,
  )
}

async function buildBlended(level: number): Promise<LoadedModel> {
  const [general, wdn] = await Promise.all([readFile(modelPath(SR_MODEL)), readFile(modelPath(WDN_MODEL))])
  const model = blendModels(general, wdn, level, { a: `${SR_MODEL} model`, b: `${WDN_MODEL} model` })
  return openSession(model)
}

const unshared = (model: LoadedModel, denoise: number, note: string | null): SrModelLease => ({ model, denoise, note, done: () => {} })

/** The session to enhance with at denoise strength `denoise` (0..1). Call `done()` after the run. */
export async function acquireSrModel(denoise: number = DEFAULT_DENOISE): Promise<SrModelLease> {
  if (!isModelInstalled(WDN_MODEL)) return unshared(await loadModel(SR_MODEL), 1, WDN_MISSING_NOTE)
  const level = quantiseDenoise(denoise)
  if (level === 1) return unshared(await loadModel(SR_MODEL), 1, null)
  if (level === 0) return unshared(await loadModel(WDN_MODEL), 0, null)

  // Keyed by the files too, so tests that point MODELS_DIR elsewhere get their own models.
  const key = `${modelPath(SR_MODEL)}|${modelPath(WDN_MODEL)}|${level}`
  let entry = blended.get(key)
  // A blend lives only in the inference thread that built it: if that thread stopped, build it again.
  if (entry?.model?.session.lost) {
    blended.delete(key)
    entry = undefined
  }
  if (entry) {
    blended.delete(key) // re-inserted below: most recently used last
  } else {
    const created: BlendedEntry = { pending: buildBlended(level), users: 0, evicted: false }
    created.pending.then((model) => (created.model = model), () => undefined)
    // A blend that fails must not stay cached: the next run tries again.
    created.pending.catch(() => {
      if (blended.get(key) === created) blended.delete(key)
    })
    entry = created
  }
  blended.set(key, entry)
  for (const [oldKey, old] of blended) {
    if (blended.size <= BLENDED_SESSIONS) break
    blended.delete(oldKey)
    old.evicted = true
    releaseWhenIdle(old)
  }

  const lease = entry
  lease.users++
  let released = false
  const done = () => {
    if (released) return
    released = true
    lease.users--
    releaseWhenIdle(lease)
  }
  try {
    return { model: await lease.pending, denoise: level, note: null, done }
  } catch (error) {
    done()
    throw error
  }
}

/** Levels currently kept open (for tests of the cache). */
export function blendedLevelsOpen(): number[] {
  return [...blended.keys()].map((key) => Number(key.slice(key.lastIndexOf('|') + 1)))
}

/** Forgets blended sessions (tests that swap MODELS_DIR); sessions still in use are released after their run. */
export function releaseBlendedModels(): void {
  for (const entry of blended.values()) {
    entry.evicted = true
    releaseWhenIdle(entry)
  }
  blended.clear()
}
