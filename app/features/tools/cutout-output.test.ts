// The composition of a cutout from a known matte: crop with a margin, placing, the alpha mask, a
// background image, the shadow, formats, and the subject's box reported in the output's pixels.
import sharp from 'sharp'
import yauzl from 'yauzl'
import { describe, expect, it } from 'vitest'
import { composeCutout, foregroundBox, NO_SUBJECT_NOTE } from './cutout-output.server'

/** A 200×100 red photo whose matte is a 40×20 subject at (left 50, top 30). */
function scene(matteValue = 255) {
  const width = 200
  const height = 100
  const data = Buffer.alloc(width * height * 4)
  for (let i = 0; i < data.length; i += 4) data.set([200, 30, 30, 255], i)
  const matte = new Uint8Array(width * height)
  for (let y = 30; y < 50; y++) for (let x = 50; x < 90; x++) matte[y * width + x] = matteValue
  return { image: { data, width, height }, matte }
}
const JPEG_UPLOAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0])
const PNG_UPLOAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

async function pixels(bytes: Buffer) {
  const grey = (await sharp(bytes).metadata()).channels === 1
  const { data, info } = await (grey ? sharp(bytes).toColourspace('b-w') : sharp(bytes)).raw().toBuffer({ resolveWithObject: true })
  return { data, info, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x + 1) * info.channels)] }
}

describe('composeCutout', () => {
  it('finds the subject box and keeps the photo size by default (transparent PNG)', async () => {
    const { image, matte } = scene()
    expect(foregroundBox(matte, 200, 100)).toEqual({ top: 30, left: 50, width: 40, height: 20 })
    const out = await composeCutout(image, matte, PNG_UPLOAD, {})
    expect(out).toMatchObject({ contentType: 'image/png', width: 200, height: 100, foreground: { top: 30, left: 50, width: 40, height: 20 } })
    const read = await pixels(out.bytes)
    expect(read.at(60, 40)).toEqual([200, 30, 30, 255])
    expect(read.at(5, 5)).toEqual([0, 0, 0, 0])
  })

  it('crops to the subject with a margin in pixels or percent of its longer side', async () => {
    const { image, matte } = scene()
    const px = await composeCutout(image, matte, PNG_UPLOAD, { crop: { margin: { value: 10, unit: 'px' } } })
    expect([px.width, px.height]).toEqual([60, 40])
    expect(px.foreground).toEqual({ top: 10, left: 10, width: 40, height: 20 })
    const pct = await composeCutout(image, matte, PNG_UPLOAD, { crop: { margin: { value: 50, unit: '%' } } })
    // 50 % of 40 = 20 px a side; 30 - 20 = 10 px above the photo's top stays inside.
    expect([pct.width, pct.height]).toEqual([80, 60])
  })

  it('pads past the photo edge with transparency', async () => {
    const { image, matte } = scene()
    const out = await composeCutout(image, matte, PNG_UPLOAD, { crop: { margin: { value: 40, unit: 'px' } } })
    expect([out.width, out.height]).toEqual([120, 100])
    const read = await pixels(out.bytes)
    expect(read.at(60, 2)).toEqual([0, 0, 0, 0]) // above the photo's top edge
    expect(read.at(60, 50)).toEqual([200, 30, 30, 255])
  })

  it('scales the subject and places it (position in percent)', async () => {
    const { image, matte } = scene()
    const out = await composeCutout(image, matte, PNG_UPLOAD, { scale: 0.5, position: { x: 0, y: 1 } })
    // 40×20 fits 100×50 as 100×50, at the bottom left.
    expect(out.foreground).toEqual({ top: 50, left: 0, width: 100, height: 50 })
  })

  it('answers the alpha mask as a one-channel PNG', async () => {
    const { image, matte } = scene(180)
    const out = await composeCutout(image, matte, PNG_UPLOAD, { channels: 'alpha' })
    const read = await pixels(out.bytes)
    expect(read.info.channels).toBe(1)
    expect(read.at(60, 40)).toEqual([180])
    expect(read.at(0, 0)).toEqual([0])
  })

  it('thresholds the matte without semi-transparency', async () => {
    const { image, matte } = scene(180)
    const read = await pixels((await composeCutout(image, matte, PNG_UPLOAD, { channels: 'alpha', hardEdges: true })).bytes)
    expect(read.at(60, 40)).toEqual([255])
  })

  it('puts the subject over a background image sized to cover, opaque', async () => {
    const { image, matte } = scene()
    const blue = await sharp({ create: { width: 30, height: 60, channels: 3, background: '#0000ff' } }).png().toBuffer()
    const out = await composeCutout(image, matte, PNG_UPLOAD, { backgroundImage: blue, format: 'auto' })
    expect(out.contentType).toBe('image/png') // auto: opaque, but the upload was a PNG
    const read = await pixels(out.bytes)
    expect(read.at(5, 5).slice(0, 3)).toEqual([0, 0, 255])
    expect(read.at(60, 40).slice(0, 3)).toEqual([200, 30, 30])
  })

  it('answers a JPEG for format=auto when the result is opaque and the upload was a JPEG', async () => {
    const { image, matte } = scene()
    expect((await composeCutout(image, matte, JPEG_UPLOAD, { background: 'white', format: 'auto' })).contentType).toBe('image/jpeg')
    expect((await composeCutout(image, matte, JPEG_UPLOAD, { format: 'auto' })).contentType).toBe('image/png')
    const webp = await composeCutout(image, matte, PNG_UPLOAD, { format: 'webp' })
    expect(webp.contentType).toBe('image/webp')
    expect((await sharp(webp.bytes).metadata()).hasAlpha).toBe(true)
  })

  it('casts a soft shadow under the subject, darker just below it than far away', async () => {
    const { image, matte } = scene()
    const read = await pixels((await composeCutout(image, matte, PNG_UPLOAD, { background: 'white', shadow: true })).bytes)
    const below = read.at(70, 51)
    expect(below[0]).toBeLessThan(240)
    expect(read.at(70, 95)[0]).toBe(255)
  })

  it('downscales to max pixels with the box following', async () => {
    const { image, matte } = scene()
    const out = await composeCutout(image, matte, PNG_UPLOAD, { maxPixels: 5000 })
    expect([out.width, out.height]).toEqual([100, 50])
    expect(out.foreground).toEqual({ top: 15, left: 25, width: 20, height: 10 })
  })

  it('writes remove.bg\'s zip: color.jpg and alpha.png', async () => {
    const { image, matte } = scene()
    const out = await composeCutout(image, matte, PNG_UPLOAD, { format: 'zip' })
    expect(out.contentType).toBe('application/zip')
    const names = await new Promise<string[]>((resolve, reject) =>
      yauzl.fromBuffer(out.bytes, { lazyEntries: false }, (error, zip) => {
        if (error) return reject(error)
        const found: string[] = []
        zip.on('entry', (entry: yauzl.Entry) => found.push(entry.fileName))
        zip.on('end', () => resolve(found))
      }),
    )
    expect(names).toEqual(['color.jpg', 'alpha.png'])
  })

  it('says so when there is no subject to crop', async () => {
    const { image } = scene()
    const out = await composeCutout(image, new Uint8Array(200 * 100), PNG_UPLOAD, { crop: { margin: { value: 0, unit: 'px' } } })
    expect(out.foreground).toBeNull()
    expect(out.note).toBe(NO_SUBJECT_NOTE)
    expect([out.width, out.height]).toEqual([200, 100])
  })
})
