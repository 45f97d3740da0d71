import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { encodePng, type Channels } from './pixels.server'

function noise(width: number, height: number, channels: Channels, opaque = false): Buffer {
  const data = randomBytes(width * height * channels)
  if (opaque && channels === 4) for (let i = 3; i < data.length; i += 4) data[i] = 255
  return data
}

describe('encodePng', () => {
  for (const channels of [1, 3, 4] as const) {
    it(`is lossless for ${channels}-channel images (decoded pixels identical), with no metadata`, async () => {
      const data = noise(37, 23, channels)
      const png = await encodePng({ data, width: 37, height: 23, channels }, { keepAlpha: true })
      const meta = await sharp(png).metadata()
      expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['png', 37, 23, channels])
      expect([meta.exif, meta.icc, meta.xmp]).toEqual([undefined, undefined, undefined])
      // sharp widens grey to sRGB on output unless told to keep one channel.
      const decoded = await (channels === 1 ? sharp(png).extractChannel(0) : sharp(png)).raw().toBuffer()
      expect(decoded.equals(data)).toBe(true)
    })
  }

  it('drops an alpha channel that is opaque everywhere, unless asked to keep it', async () => {
    const data = noise(16, 9, 4, true)
    const rgb = await sharp(await encodePng({ data, width: 16, height: 9, channels: 4 })).raw().toBuffer({ resolveWithObject: true })
    expect(rgb.info.channels).toBe(3)
    const expected = Buffer.alloc(16 * 9 * 3)
    for (let p = 0; p < 16 * 9; p++) data.copy(expected, p * 3, p * 4, p * 4 + 3)
    expect(rgb.data.equals(expected)).toBe(true)
    const kept = await sharp(await encodePng({ data, width: 16, height: 9, channels: 4 }, { keepAlpha: true })).metadata()
    expect(kept.channels).toBe(4)
  })

  it('splits a large image across several IDAT chunks that decode as one', async () => {
    const data = noise(1200, 1000, 3)
    const png = await encodePng({ data, width: 1200, height: 1000, channels: 3 })
    expect(png.length).toBeGreaterThan(1 << 20)
    expect((await sharp(png).raw().toBuffer()).equals(data)).toBe(true)
  })
})
