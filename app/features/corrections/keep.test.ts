// What a run keeps (decision 157) and what it hands over in memory (decision 169): a correction in
// the run's process must start from exactly what a correction elsewhere reads back from storage.
import zlib from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { keepCutout } from './keep.server'
import { pack, unpack } from './pack.server'
import { coloursOf, decodePhoto, forgetOpened, keepOpened, openCutout, photoColours, photoOf, unmixInPlace, type OpenedByRun } from './render.server'

const WIDTH = 48
const HEIGHT = 32

/** A photo as the run decoded it, with the colours the refinement unmixed on a band of it, and a matte. */
async function run() {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3)
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 37) % 251
  const upload = await sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
  const image = await decodePhoto(upload)
  const colours = Buffer.from(image.data)
  // The edge band: columns 20..27 unmixed (their RGB changed, their alpha the photo's own).
  for (let y = 0; y < HEIGHT; y++) for (let x = 20; x < 28; x++) colours.fill(200 - x, (y * WIDTH + x) * 4, (y * WIDTH + x) * 4 + 3)
  const alpha = new Uint8Array(WIDTH * HEIGHT).map((_, p) => ((p % WIDTH) < 24 ? 255 : 0))
  const modelMatte = { data: new Uint8Array(8 * 8).fill(200), width: 8, height: 8 }
  return { upload, image, colours, alpha, kept: await keepCutout({ upload, backgroundImage: null, options: {}, image, modelMatte, alpha, colours }) }
}

describe('what a run keeps for its corrections', () => {
  it('opens from storage to the run\'s own colours, matte and photo: the same as the run hands over in memory', async () => {
    const { image, colours, alpha, kept } = await run()
    forgetOpened()
    const stored = (await openCutout('stored', async () => kept.source, { colours: true }))!
    const fromStorage = await coloursOf(stored)
    expect(Buffer.from(fromStorage.unmixed.data).equals(colours)).toBe(true)
    expect(Buffer.from(stored.source.alpha).equals(Buffer.from(alpha))).toBe(true)
    expect((await photoOf(stored)).data.equals(image.data)).toBe(true)

    const byRun = kept.opened as OpenedByRun
    keepOpened('run', byRun)
    const inMemory = (await openCutout('run', async () => null))!
    expect(inMemory.source.changedAt).toEqual(stored.source.changedAt)
    expect(Buffer.from(inMemory.source.changedRgb).equals(stored.source.changedRgb)).toBe(true)
    expect((await coloursOf(inMemory)).photoRgb.equals(fromStorage.photoRgb)).toBe(true)
    expect((await photoOf(inMemory)).data.equals(image.data)).toBe(true)
    forgetOpened()
  })

  it('puts the unmixed colours in place and gives the photo\'s own back from them', async () => {
    const { image, colours, kept } = await run()
    const source = (kept.opened as OpenedByRun).source
    expect(source.changedAt.length).toBe(HEIGHT * 8)
    const photo = { ...image, data: Buffer.from(image.data) }
    const unmixed = unmixInPlace(photo, source)
    expect(unmixed.unmixed.data).toBe(photo.data)
    expect(photo.data.equals(colours)).toBe(true)
    expect(photoColours(unmixed, source.changedAt).data.equals(image.data)).toBe(true)
  })

  it('keeps the refined matte as runs and edge bytes, and still opens a source kept before them (the matte deflated whole)', async () => {
    const { colours, alpha, kept } = await run()
    const { meta, sections } = unpack(kept.source)
    expect(sections.alpha).toBeUndefined()
    expect(sections.alphaRuns).toBeDefined()
    // As decision 157 packed it; such a row lives out its 24 hours after this change.
    const before = pack(meta, { ...sections, alphaRuns: null, alphaLiterals: null, alpha: zlib.deflateSync(alpha, { level: 1 }) })
    for (const [jobId, packed] of [['runs', kept.source], ['whole', before]] as const) {
      forgetOpened()
      const opened = (await openCutout(jobId, async () => packed, { colours: true }))!
      expect(Buffer.from(opened.source.alpha).equals(Buffer.from(alpha)), jobId).toBe(true)
      expect(Buffer.from((await coloursOf(opened)).unmixed.data).equals(colours), jobId).toBe(true)
    }
    forgetOpened()
  })
})
