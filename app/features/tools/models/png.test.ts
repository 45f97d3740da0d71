import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { ImageThreadError, imageThreads } from './image-threads.server'
import { combineAdler32, encodePng } from './png.server'

/** Adler-32 as zlib computes it: the trailer of a zlib stream. */
const adler32 = (data: Buffer) => zlib.deflateSync(data, { level: 0 }).readUInt32BE(zlib.deflateSync(data, { level: 0 }).length - 4)

/** The IDAT payload of a PNG, inflated (zlib checks the stream's Adler-32 while inflating). */
function inflatedImageData(png: Buffer): Buffer {
  const parts: Buffer[] = []
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset)
    if (png.toString('latin1', offset + 4, offset + 8) === 'IDAT') parts.push(png.subarray(offset + 8, offset + 8 + length))
    offset += 12 + length
  }
  return zlib.inflateSync(Buffer.concat(parts))
}

const decode = async (png: Buffer, channels: number) =>
  (channels === 1 ? sharp(png).extractChannel(0) : sharp(png)).raw().toBuffer({ resolveWithObject: true })

/** A cutout as the encoder must write it: the picture's alpha times the matte, and no colour where that is 0. */
function expectedCutout(data: Buffer, alpha: Uint8Array): Buffer {
  const expected = Buffer.from(data)
  for (let p = 0; p < alpha.length; p++) {
    const own = data[p * 4 + 3]
    const written = own === 255 ? alpha[p] : Math.round((alpha[p] * own) / 255)
    expected[p * 4 + 3] = written
    if (written === 0) expected.fill(0, p * 4, p * 4 + 3)
  }
  return expected
}

describe('combineAdler32', () => {
  it('gives the checksum of two parts joined, from the parts’ checksums', () => {
    for (const [n, m] of [[0, 5], [1, 1], [70_000, 3], [5, 200_000], [123_457, 98_765]]) {
      const a = randomBytes(n)
      const b = randomBytes(m)
      expect(combineAdler32(adler32(a), adler32(b), m)).toBe(adler32(Buffer.concat([a, b])))
    }
  })
})

describe('encodePng in segments', () => {
  // Widths that make rows a whole number of 32-bit words and widths that do not; offset 1 is an unaligned buffer.
  const layouts = [
    { channels: 1, width: 37, offset: 0 },
    { channels: 1, width: 40, offset: 0 },
    { channels: 3, width: 37, offset: 0 },
    { channels: 3, width: 44, offset: 0 },
    { channels: 4, width: 37, offset: 0 },
    { channels: 4, width: 37, offset: 1 },
  ] as const
  for (const { channels, width, offset } of layouts) {
    it(`is lossless with many segments: ${channels} channel(s), ${width} px wide${offset ? ', unaligned buffer' : ''}`, async () => {
      const height = 29
      const data = randomBytes(width * height * channels + offset).subarray(offset)
      for (const segmentRows of [1, 4, 29, 100]) {
        const png = await encodePng({ data, width, height, channels }, { keepAlpha: true, segmentRows })
        expect(inflatedImageData(png).length).toBe((width * channels + 1) * height)
        const decoded = await decode(png, channels)
        expect([decoded.info.width, decoded.info.height, decoded.info.channels]).toEqual([width, height, channels])
        expect(decoded.data.equals(data)).toBe(true)
      }
    })
  }

  it('drops an opaque alpha channel in segments too', async () => {
    const data = randomBytes(31 * 17 * 4)
    for (let i = 3; i < data.length; i += 4) data[i] = 255
    const png = await encodePng({ data, width: 31, height: 17, channels: 4 }, { segmentRows: 3 })
    const decoded = await decode(png, 3)
    expect(decoded.info.channels).toBe(3)
    const expected = Buffer.alloc(31 * 17 * 3)
    for (let p = 0; p < 31 * 17; p++) data.copy(expected, p * 3, p * 4, p * 4 + 3)
    expect(decoded.data.equals(expected)).toBe(true)
  })

  for (const offset of [0, 1]) {
    it(`writes the picture's alpha times a matte as the 4th channel${offset ? ' (unaligned buffer)' : ''}, leaving the picture alone`, async () => {
      const width = 23
      const height = 19
      const data = randomBytes(width * height * 4 + offset).subarray(offset)
      // Some opaque pixels (the matte itself is written there), the rest with their own random alpha.
      for (let p = 0; p < width * height; p += 3) data[p * 4 + 3] = 255
      const before = Buffer.from(data)
      const alpha = randomBytes(width * height)
      // Some fully transparent pixels: their colour must not reach the file.
      for (let p = 0; p < alpha.length; p += 7) alpha[p] = 0
      const png = await encodePng({ data, width, height, channels: 4 }, { alpha, segmentRows: 5 })
      const expected = expectedCutout(data, alpha)
      expect((await decode(png, 4)).data.equals(expected)).toBe(true)
      expect(data.equals(before)).toBe(true)
    })
  }

  for (const matteOffset of [0, 1]) {
    it(`writes a cutout's whole runs (matte 0, matte 255 over opaque and translucent pixels) the same in one segment and in threads${matteOffset ? ' (unaligned matte)' : ''}`, async () => {
      const width = 41
      const height = 23
      const data = randomBytes(width * height * 4)
      const alpha = randomBytes(width * height + matteOffset).subarray(matteOffset)
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const p = y * width + x
          // Left: cut away; middle: kept whole; right: the soft edge. The picture is opaque but for a few pixels.
          alpha[p] = x < 13 ? 0 : x < 28 ? 255 : alpha[p]
          data[p * 4 + 3] = (x + y) % 9 === 0 ? data[p * 4 + 3] : 255
        }
      }
      const expected = expectedCutout(data, alpha)
      for (const segmentRows of [1, 5, height]) {
        const png = await encodePng({ data, width, height, channels: 4 }, { alpha, segmentRows })
        expect((await decode(png, 4)).data.equals(expected)).toBe(true)
      }
    })
  }

  it('reads a picture and a matte in shared memory where they are, in segments whose matte starts anywhere', async () => {
    const width = 41
    const height = 23
    const data = Buffer.from(new SharedArrayBuffer(width * height * 4))
    randomBytes(data.length).copy(data)
    const alpha = Buffer.from(new SharedArrayBuffer(width * height))
    randomBytes(alpha.length).copy(alpha)
    for (let p = 0; p < width * height; p++) {
      if (p % 5 === 0) data[p * 4 + 3] = 255
      if (p % 41 < 12) alpha[p] = p % 2 ? 0 : 255
    }
    const before = Buffer.from(data)
    const png = await encodePng({ data, width, height, channels: 4 }, { alpha, segmentRows: 3 })
    expect((await decode(png, 4)).data.equals(expectedCutout(data, alpha))).toBe(true)
    expect(data.equals(before)).toBe(true)
  })

  it('fails a PNG whose image thread stops with a clear error, and the next PNG is written by a new thread', async () => {
    const width = 64
    const height = 64
    const data = randomBytes(width * height * 3)
    await encodePng({ data, width, height, channels: 3 }, { segmentRows: 4 })
    const [thread] = imageThreads().workers()
    const inFlight = encodePng({ data, width, height, channels: 3 }, { segmentRows: 4 })
    thread.postMessage({ op: 'crash' })
    await expect(inFlight).rejects.toThrow(ImageThreadError)
    await expect(inFlight).rejects.toThrow(/image thread stopped unexpectedly \(exit code 1: thread crash requested\)/)
    const png = await encodePng({ data, width, height, channels: 3 }, { segmentRows: 4 })
    expect((await decode(png, 3)).data.equals(data)).toBe(true)
  })
})
