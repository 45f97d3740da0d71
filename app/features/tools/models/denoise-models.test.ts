import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  acquireSrModel,
  BLENDED_SESSIONS,
  blendedLevelsOpen,
  quantiseDenoise,
  releaseBlendedModels,
  WDN_MISSING_NOTE,
  WDN_MODEL,
} from './denoise-models.server'
import { ModelBlendError } from './dni.server'
import { requireModels, useModelsFolder } from './fixtures.test-support'
import { modelEntry } from './manifest'
import { loadModel, runSession } from './registry.server'
import { SR_MODEL } from './super-resolution.server'

vi.setConfig({ testTimeout: 120_000 })

const tinyInput = () => new Float32Array(3 * 8 * 8).fill(0.5)

describe('quantiseDenoise', () => {
  it('rounds to steps of 0.1 within 0..1', () => {
    expect(quantiseDenoise(0.44)).toBe(0.4)
    expect(quantiseDenoise(0.36)).toBe(0.4)
    expect(quantiseDenoise(0.96)).toBe(1)
    expect(quantiseDenoise(0.7)).toBe(0.7)
    expect(quantiseDenoise(-2)).toBe(0)
    expect(quantiseDenoise(3)).toBe(1)
  })
})

describe('acquireSrModel with both models installed', () => {
  beforeAll(() => requireModels(SR_MODEL, WDN_MODEL))
  afterEach(() => releaseBlendedModels())

  it('uses the installed sessions at 1 and 0, and one blended session per level between', async () => {
    const one = await acquireSrModel(1)
    expect(one.model).toBe(await loadModel(SR_MODEL))
    expect([one.denoise, one.note]).toEqual([1, null])
    const zero = await acquireSrModel(0)
    expect(zero.model).toBe(await loadModel(WDN_MODEL))
    expect(zero.denoise).toBe(0)

    const a = await acquireSrModel(0.44)
    const b = await acquireSrModel(0.36)
    expect(a.denoise).toBe(0.4)
    expect(b.model).toBe(a.model)
    expect(a.model).not.toBe(one.model)
    expect(a.model).not.toBe(zero.model)
    expect(blendedLevelsOpen()).toEqual([0.4])
    for (const lease of [one, zero, a, b]) lease.done()
  })

  it(`keeps the ${BLENDED_SESSIONS} most recently used levels`, async () => {
    for (const d of [0.1, 0.2, 0.3]) (await acquireSrModel(d)).done()
    expect(blendedLevelsOpen()).toEqual([0.1, 0.2, 0.3])
    ;(await acquireSrModel(0.1)).done() // used again: now the most recent
    ;(await acquireSrModel(0.4)).done()
    expect(blendedLevelsOpen()).toEqual([0.3, 0.1, 0.4])
  })

  it('releases an evicted session only after the run that holds it is done', async () => {
    const held = await acquireSrModel(0.6)
    for (const d of [0.7, 0.8, 0.9]) (await acquireSrModel(d)).done()
    expect(blendedLevelsOpen()).not.toContain(0.6)
    // Evicted while in use: it still runs.
    const { output } = await runSession(held.model, tinyInput(), [1, 3, 8, 8])
    expect(output.dims).toEqual([1, 3, 32, 32])
    held.done()
    await new Promise((resolve) => setTimeout(resolve, 10))
    await expect(runSession(held.model, tinyInput(), [1, 3, 8, 8])).rejects.toThrow()
  })
})

describe('acquireSrModel with a missing or broken wdn model', () => {
  const folder = useModelsFolder({ link: [SR_MODEL], beforeRestore: releaseBlendedModels })

  it('falls back to the general model at any strength and says so', async () => {
    for (const d of [0, 0.3, 1]) {
      const lease = await acquireSrModel(d)
      expect(lease.model).toBe(await loadModel(SR_MODEL))
      expect(lease.denoise).toBe(1)
      expect(lease.note).toBe(WDN_MISSING_NOTE)
      lease.done()
    }
  })

  it('refuses a wdn file that is not the same network, and does not cache the failure', async () => {
    const wdnFile = path.join(folder, modelEntry(WDN_MODEL).file)
    writeFileSync(wdnFile, Buffer.from('definitely not an onnx protobuf'))
    try {
      await expect(acquireSrModel(0.5)).rejects.toThrow(ModelBlendError)
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(blendedLevelsOpen()).toEqual([])
    } finally {
      rmSync(wdnFile)
    }
  })
})
