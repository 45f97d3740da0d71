// Each runner on real models and real files: its progress rises from the work itself to 1, in the
// tool's spec stage messages, and its options and names follow the spec.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { TOOLS, type ToolSlug } from '../../../catalog/tools'
import { PHOTOS, requireModels } from '../models/fixtures.test-support'
import { runnerFor } from './index.server'
// The remover and the blurrer keep what a correction needs through hooks the wiring hands in (decision 170).
import '~/features/wiring.server'
import { runProgress } from './progress'

vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels('u2netp', 'yunet', 'realesr-general-x4v3'))

const photo = (name: string) => readFileSync(path.join(PHOTOS, name))
const svgFixture = (name: string) => readFileSync(path.resolve(__dirname, '../../../../tests/fixtures/svg', name))

async function runWithProgress(tool: ToolSlug, bytes: Buffer, fields: Record<string, string> = {}) {
  const runner = runnerFor(tool)
  const options = await runner.parseOptions(fields)
  await runner.inspect(bytes, options)
  const reports: Array<{ fraction: number; stage: string | undefined }> = []
  let decodedAt = -1
  const delivered = await runner.run({
    bytes,
    options,
    signal: new AbortController().signal,
    progress: (fraction, stage) => reports.push({ fraction, stage }),
    decoded: async () => {
      decodedAt = reports.length
    },
  })
  return { delivered, reports, decodedAt }
}

function expectRisingToOne(tool: ToolSlug, reports: Array<{ fraction: number; stage: string | undefined }>) {
  const fractions = reports.map((r) => r.fraction)
  expect(fractions.length).toBeGreaterThan(2)
  for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1])
  expect(fractions[0]).toBeGreaterThanOrEqual(0)
  expect(fractions.at(-1)).toBe(1)
  expect(fractions.filter((f) => f === 1)).toHaveLength(fractions.length - fractions.indexOf(1))
  const messages = TOOLS[tool].steps.map((s) => s.message)
  for (const { stage } of reports) expect(messages).toContain(stage)
  expect(reports.at(-1)?.stage).toBe(messages.at(-1))
}

describe('runner progress from the work', () => {
  it('the enhancer reports each tile: a 520×200 picture is 3 tiles, each a step up', async () => {
    // Three 256 px tiles in a row (the last only 8 px wide): a first, a middle and a last step, at half the
    // pixels of a picture two tiles high.
    const bytes = await sharp(photo('portrait-astronaut.png')).resize(520, 200, { fit: 'fill' }).png().toBuffer()
    const { delivered, reports, decodedAt } = await runWithProgress('image-enhancer', bytes)
    expect(decodedAt).toBe(0)
    expectRisingToOne('image-enhancer', reports)
    const enhancing = reports.filter((r) => r.stage === 'Enhancing the entire frame')
    expect(enhancing).toHaveLength(3)
    expect(new Set(enhancing.map((r) => r.fraction)).size).toBe(3)
    expect(reports.some((r) => r.stage === 'Encoding final image' && r.fraction < 1)).toBe(true)
    expect((await sharp(delivered.bytes).metadata()).width).toBe(2080)
  })

  it('the face blurrer reports detection, then each face of a group photo', async () => {
    const { delivered, reports } = await runWithProgress('face-blurrer', photo('group-nasa-astronaut-class.jpg'), { blur: '32' })
    expectRisingToOne('face-blurrer', reports)
    const faces = delivered.facesFound ?? 0
    expect(faces).toBeGreaterThan(2)
    // One report as each face starts (the first at the detection's end share) and one when all are done.
    expect(reports.filter((r) => r.stage === 'Rendering blur shields').length).toBeGreaterThanOrEqual(faces + 1)
    expect(runnerFor('face-blurrer').refundReason?.(delivered)).toBeNull()
  })

  it('the face restorer reports its faces; a picture with no face is refunded', async () => {
    const restored = await runWithProgress('face-restorer', photo('degraded-face-crop-64px.jpg'))
    expectRisingToOne('face-restorer', restored.reports)
    const stages = restored.reports.map((r) => r.stage)
    for (const stage of ['Scanning facial landmarks', 'Rebuilding texture detail', 'Recovering light + contrast', 'Polishing final portrait']) {
      expect(stages).toContain(stage)
    }
    expect(restored.delivered.note).toMatch(/^(Fallback detail mode|Faces restored by GFPGAN)/)
    const none = await runWithProgress('face-restorer', photo('noface-rocket.jpg'))
    expect(none.delivered.facesFound).toBe(0)
    expect(runnerFor('face-restorer').refundReason?.(none.delivered)).toBe('Refund: no face found')
  })

  it('the background remover reports the matte, the refinement and the encoding', async () => {
    const { reports } = await runWithProgress('background-remover', photo('product-gameboy-white-bg.jpg'), { background: 'white' })
    expectRisingToOne('background-remover', reports)
    expect(reports.length).toBeGreaterThanOrEqual(5)
  })

  it('the SVG converter reports sanitised, rendered and encoded', async () => {
    const { reports, delivered } = await runWithProgress('svg-converter', svgFixture('tango-user-home.svg'), { format: 'webp', scale: '2' })
    expectRisingToOne('svg-converter', reports)
    expect(reports.map((r) => r.stage)).toEqual(['Rendering raster output', 'Rendering raster output', 'Preparing download', 'Preparing download'])
    expect(delivered.contentType).toBe('image/webp')
  })

  it('a file that does not decode stops before the caller is told to charge', async () => {
    const runner = runnerFor('face-blurrer')
    const truncated = photo('noface-coffee.png').subarray(0, 5000)
    const decoded = vi.fn(async () => {})
    await expect(
      runner.run({ bytes: truncated, options: { blur: 32 }, signal: new AbortController().signal, progress: () => {}, decoded }),
    ).rejects.toMatchObject({ status: 400 })
    expect(decoded).not.toHaveBeenCalled()
  })
})

describe('runProgress', () => {
  it('never goes back and clamps to 0..1', () => {
    const seen: number[] = []
    const progress = runProgress('face-blurrer', (fraction) => seen.push(fraction), {
      a: { from: 0, to: 0.5, step: 1 },
      b: { from: 0.5, to: 1, step: 2 },
    })
    progress.phase('b', 0.5)
    progress.phase('a', 1)
    progress.phase('b', 7)
    progress.phase('a', Number.NaN)
    progress.done()
    expect(seen).toEqual([0.75, 0.75, 1, 1, 1])
  })
})

describe('runner options and names', () => {
  it('keeps the spec messages and download names', async () => {
    await expect(runnerFor('face-blurrer').parseOptions({ blur: '13' })).rejects.toMatchObject({
      status: 400,
      message: 'blur must be a number from 12 to 60 in steps of 2.',
    })
    await expect(runnerFor('image-enhancer').parseOptions({ denoise: '2' })).rejects.toMatchObject({ message: 'denoise must be a number from 0 to 1.' })
    await expect(runnerFor('svg-converter').parseOptions({ format: 'gif', scale: '1' })).rejects.toMatchObject({ message: 'format must be one of png, jpeg, webp.' })
    await expect(runnerFor('svg-converter').parseOptions({ format: 'PNG', scale: '5' })).rejects.toMatchObject({ message: 'scale must be one of 0.75, 1, 2, 3.' })
    expect(runnerFor('image-enhancer').outputName({}, 'C:\\photos\\holiday.jpg')).toBe('holiday-enhanced.png')
    expect(runnerFor('image-enhancer').outputName({}, '.jpg')).toBe('enhanced.png')
    expect(runnerFor('svg-converter').outputName({ format: 'jpeg', scale: 1 }, 'logo café.svg')).toBe('logo café.jpeg')
    expect(runnerFor('background-remover').outputName({ background: '#F472B6' }, 'x.png')).toBe('cutout-f472b6.png')
    expect(runnerFor('background-remover').outputName({}, 'x.png')).toBe('background-removed.png')
    expect(runnerFor('face-restorer').outputName({}, 'x.png')).toBe('face-restored.png')
  })
})
