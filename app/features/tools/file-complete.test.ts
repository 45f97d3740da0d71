import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { isFileComplete } from './file-complete'

const photos = path.join(process.env.FIXTURES_DIR ?? 'tests/fixtures', 'photos')
const fixtures = readdirSync(photos).filter((name) => /\.(png|jpe?g)$/i.test(name))
const formatOf = (name: string) => (/\.png$/i.test(name) ? 'png' : 'jpeg')

describe('a file is whole by its own structure (file-complete.ts)', () => {
  it.each(fixtures)('the fixture %s is whole', (name) => {
    expect(isFileComplete(readFileSync(path.join(photos, name)), formatOf(name))).toBe(true)
  })

  it.each(fixtures)('%s cut at a quarter, a half and one byte short of its end is not', (name) => {
    const bytes = readFileSync(path.join(photos, name))
    for (const keep of [Math.floor(bytes.length / 4), Math.floor(bytes.length / 2), bytes.length - 1]) {
      expect(isFileComplete(bytes.subarray(0, keep), formatOf(name)), `${keep} of ${bytes.length} bytes`).toBe(false)
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
      expect(isFileComplete(bytes, format), format).toBe(true)
      expect(isFileComplete(Buffer.concat([bytes, Buffer.from('trailing camera data')]), format), `${format} + trailer`).toBe(true)
      expect(isFileComplete(bytes.subarray(0, bytes.length - 3), format), `${format} cut`).toBe(false)
    }
  })

  it('a PNG with its header and no image data, or a chunk running past the end, is not whole', async () => {
    const png = await sharp({ create: { width: 16384, height: 1, channels: 3, background: '#000' } }).png().toBuffer()
    const headerOnly = png.subarray(0, 8 + 25) // signature + IHDR chunk
    expect(isFileComplete(headerOnly, 'png')).toBe(false)
    const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])
    expect(isFileComplete(Buffer.concat([headerOnly, iend]), 'png'), 'IEND without IDAT').toBe(false)
    expect(isFileComplete(png, 'png')).toBe(true)
  })

  it('formats it does not walk are left to the decoder', () => {
    expect(isFileComplete(Buffer.from('GIF89a'), 'gif')).toBe(true)
    expect(isFileComplete(Buffer.from('II*\0'), 'tiff')).toBe(true)
  })
})
