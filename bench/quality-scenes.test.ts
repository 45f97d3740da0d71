import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fixtureScenes, openclipartFiles } from './quality-scenes'

const empty = mkdtempSync(path.join(os.tmpdir(), 'no-clipart-'))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

describe('quality scenes', () => {
  it('says how to install the clip art when it is missing', () => {
    expect(() => openclipartFiles(path.join(empty, 'absent'))).toThrow(/apt-get install -y openclipart-png/)
    expect(() => openclipartFiles(empty)).toThrow(/apt-get install -y openclipart-png/)
  })

  it('builds the ten fixture scenes the same way every time, their truth matching the composite', async () => {
    const [first, second] = [await fixtureScenes(), await fixtureScenes()]
    expect(first).toHaveLength(10)
    for (let i = 0; i < first.length; i++) {
      const a = first[i]
      expect(a.id).toBe(second[i].id)
      expect(Buffer.compare(a.image.data, second[i].image.data)).toBe(0)
      // Where the truth is opaque, the composite shows the object's own colour.
      let opaque = 0
      let differing = 0
      for (let p = 0; p < a.truthAlpha.length; p++) {
        if (a.truthAlpha[p] !== 255) continue
        opaque++
        for (let k = 0; k < 3; k++) if (a.image.data[p * 4 + k] !== a.truthRgb[p * 3 + k]) differing++
      }
      expect(opaque).toBeGreaterThan(1000)
      expect(differing).toBe(0)
    }
  }, 180_000)
})
