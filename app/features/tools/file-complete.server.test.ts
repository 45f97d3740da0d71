import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { crc32 } from 'node:zlib'
import { isFileComplete, pngFilteredBytes } from './file-complete.server'

const photos = path.join(process.env.FIXTURES_DIR ?? 'tests/fixtures', 'photos')
const fixtures = readdirSync(photos).filter((name) => /\.(png|jpe?g)$/i.test(name))
const formatOf = (name: string) => (/\.png$/i.test(name) ? 'png' : 'jpeg')

describe('a file is whole by its own structure (file-complete.ts)', () => {
  it.each(fixtures)('the fixture %s is whole', async (name) => {
    expect(await isFileComplete(readFileSync(path.join(photos, name)), formatOf(name))).toBe(true)
  })

  it.each(fixtures)('%s cut at a quarter, a half and one byte short of its end is not', async (name) => {
    const bytes = readFileSync(path.join(photos, name))
    for (const keep of [Math.floor(bytes.length / 4), Math.floor(bytes.length / 2), bytes.length - 1]) {
      expect(await isFileComplete(bytes.subarray(0, keep), formatOf(name)), `${keep} of ${bytes.length} bytes`).toBe(false)
    }
  })

  it('every encoder sharp has writes files it calls whole, data after the end allowed', async () => {
    const image = sharp({ create: { width: 40, height: 30, channels: 3, background: '#c04020' } })
    for (const [format, bytes] of [
      ['png', await image.clone().png().toBuffer()],
      ['jpeg', await image.clone().jpeg({ progressive: true }).toBuffer()],
      ['jpeg', await image.clone().jpeg().toBuffer()],
      ['webp', await image.clone().webp().toBuffer()],
      ['webp', await image.clone().webp({ lossless: true }).toBuffer()],
    ] as const) {
      expect(await isFileComplete(bytes, format), format).toBe(true)
      expect(await isFileComplete(Buffer.concat([bytes, Buffer.from('trailing camera data')]), format), `${format} + trailer`).toBe(true)
      expect(await isFileComplete(bytes.subarray(0, bytes.length - 3), format), `${format} cut`).toBe(false)
    }
  })

  it('a PNG with its header and no image data, or a chunk running past the end, is not whole', async () => {
    const png = await sharp({ create: { width: 16384, height: 1, channels: 3, background: '#000' } }).png().toBuffer()
    const headerOnly = png.subarray(0, 8 + 25) // signature + IHDR chunk
    expect(await isFileComplete(headerOnly, 'png')).toBe(false)
    const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])
    expect(await isFileComplete(Buffer.concat([headerOnly, iend]), 'png'), 'IEND without IDAT').toBe(false)
    expect(await isFileComplete(png, 'png')).toBe(true)
  })

  it('a PNG whose data holds fewer pixels than its header claims is not whole; every kind of sound PNG is', async () => {
    const rgb = { create: { width: 64, height: 48, channels: 3 as const, background: '#c04020' } }
    const rgba = { create: { width: 64, height: 48, channels: 4 as const, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }
    for (const [label, bytes] of [
      ['RGB', await sharp(rgb).png().toBuffer()],
      ['RGBA', await sharp(rgba).png().toBuffer()],
      ['interlaced (Adam7)', await sharp(rgb).png({ progressive: true }).toBuffer()],
      ['interlaced RGBA', await sharp(rgba).png({ progressive: true }).toBuffer()],
      ['palette', await sharp(rgba).png({ palette: true }).toBuffer()],
      ['palette, 2 bits', await sharp(rgb).png({ palette: true, colours: 4 }).toBuffer()],
      ['16-bit', await sharp(rgb).toColourspace('rgb16').png().toBuffer()],
      ['grey', await sharp(rgb).greyscale().png().toBuffer()],
      ['grey + alpha', await sharp(rgba).toColourspace('b-w').png().toBuffer()],
      ['odd size, interlaced', await sharp({ create: { width: 13, height: 7, channels: 3, background: '#123456' } }).png({ progressive: true }).toBuffer()],
    ] as const) {
      expect(await isFileComplete(bytes, 'png'), label).toBe(true)
      // The same data under a header claiming more rows, or wider rows: every chunk whole, the pixels short.
      for (const [width, height] of [[64, 96], [16384, 1]]) {
        const claiming = Buffer.from(bytes)
        claiming.writeUInt32BE(width, 16)
        claiming.writeUInt32BE(height, 20)
        claiming.writeUInt32BE(crc32(claiming.subarray(12, 29)), 29)
        expect(await isFileComplete(claiming, 'png'), `${label} claiming ${width}×${height}`).toBe(false)
      }
    }
  })

  it('a large PNG whose chunks are whole but whose pixels stop short is not whole', async () => {
    // 2,000 × 1,500 RGBA of noise (12 MB filtered, barely compressible): the data of its first 1,000 rows
    // under its own header, every chunk and CRC whole.
    const width = 2000
    const noise = Buffer.alloc(width * 1500 * 4)
    for (let i = 0, x = 12345; i < noise.length; i++) noise[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24
    const whole = await sharp(noise, { raw: { width, height: 1500, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer()
    const short = await sharp(noise.subarray(0, width * 1000 * 4), { raw: { width, height: 1000, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer()
    const claiming = Buffer.from(short)
    claiming.writeUInt32BE(1500, 20)
    claiming.writeUInt32BE(crc32(claiming.subarray(12, 29)), 29)
    expect(await isFileComplete(whole, 'png')).toBe(true)
    expect(await isFileComplete(claiming, 'png')).toBe(false)
    await expect(sharp(claiming).metadata()).resolves.toMatchObject({ width, height: 1500 })
  })

  it('counts the filtered bytes of a PNG, Adam7 passes included', () => {
    expect(pngFilteredBytes({ width: 600, height: 1000, bitDepth: 8, colourType: 2, interlaced: false })).toBe(1000 * (1 + 600 * 3))
    // 13 × 7 RGB in Adam7's passes (columns × rows, each row a filter byte and 3 bytes a pixel): 2×1, 2×1, 4×1, 3×2, 7×2, 6×4, 13×3.
    expect(pngFilteredBytes({ width: 13, height: 7, bitDepth: 8, colourType: 2, interlaced: true })).toBe(7 + 7 + 13 + 2 * 10 + 2 * 22 + 4 * 19 + 3 * 40)
  })

  it('a TIFF is whole when every directory and every strip or tile it names is in the file', async () => {
    const image = sharp({ create: { width: 300, height: 200, channels: 3, background: '#c04020' } })
    const pages = sharp(Buffer.alloc(300 * 400 * 3, 90), { raw: { width: 300, height: 400, channels: 3, pageHeight: 200 } } as never)
    for (const [label, bytes] of [
      ['stripped', await image.clone().tiff().toBuffer()],
      ['deflated', await image.clone().tiff({ compression: 'deflate' }).toBuffer()],
      ['tiled', await image.clone().tiff({ tile: true, tileWidth: 64, tileHeight: 64 }).toBuffer()],
      ['JPEG in TIFF', await image.clone().tiff({ compression: 'jpeg' }).toBuffer()],
      ['two pages', await pages.tiff().toBuffer()],
    ] as const) {
      expect(await isFileComplete(bytes, 'tiff'), label).toBe(true)
      for (const keep of [8, Math.floor(bytes.length / 2), bytes.length - 1]) {
        expect(await isFileComplete(bytes.subarray(0, keep), 'tiff'), `${label} cut to ${keep} of ${bytes.length} bytes`).toBe(false)
      }
    }
  })

  it('a TIFF whose directories loop, or that names no picture data, is not whole', async () => {
    const bytes = Buffer.from(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).tiff().toBuffer())
    const first = bytes.readUInt32LE(4)
    const entries = bytes.readUInt16LE(first)
    const looped = Buffer.from(bytes)
    looped.writeUInt32LE(first, first + 2 + entries * 12)
    expect(await isFileComplete(looped, 'tiff'), 'a directory pointing back at itself').toBe(false)
    const noData = Buffer.from(bytes)
    for (let e = first + 2; e < first + 2 + entries * 12; e += 12) if (noData.readUInt16LE(e) === 273) noData.writeUInt16LE(65000, e)
    expect(await isFileComplete(noData, 'tiff'), 'no strip offsets').toBe(false)
  })

  it('formats it does not walk are left to the decoder', async () => {
    expect(await isFileComplete(Buffer.from('GIF89a'), 'gif')).toBe(true)
    expect(await isFileComplete(Buffer.from('II+\0\x08\0\0\0'), 'tiff'), 'BigTIFF').toBe(true)
  })
})
