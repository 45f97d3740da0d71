import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { MEGABYTE } from '../../catalog/tools'
import { ToolError } from '../jobs/errors.server'
import {
  decodeToRgba,
  decodeUpload,
  FIRST_FRAME_NOTE,
  parseToolUpload,
  readImageHeader,
  requireFile,
  sniffImageType,
} from './upload.server'

const solid = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

function upload(fields: Record<string, string | Blob>, headers: Record<string, string> = {}) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return new Request('http://localhost/api/face-blur/blur/', { method: 'POST', body: form, headers })
}

/** A PNG whose header claims width×height but whose data is a tiny picture: a pixel bomb. */
async function pixelBomb(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await solid(64, 64, '#000').png().toBuffer())
  png.writeUInt32BE(width, 16)
  png.writeUInt32BE(height, 20)
  return png
}

describe('parseToolUpload', () => {
  it('keeps the file field and the named option fields, ignoring the rest', async () => {
    const png = await solid(4, 4, '#fff').png().toBuffer()
    const parsed = await parseToolUpload(
      upload({ image: new File([new Uint8Array(png)], 'me.png', { type: 'image/png' }), blur: '20', other: 'x' }),
      'face-blurrer',
      ['blur'],
    )
    expect(parsed.file?.name).toBe('me.png')
    expect(parsed.file?.bytes.equals(png)).toBe(true)
    expect(parsed.fields).toEqual({ blur: '20' })
  })

  it('stops reading at the tool limit: 413 with the spec message', async () => {
    const big = new Uint8Array(15 * MEGABYTE + 1024)
    const error = await rejection(
      parseToolUpload(upload({ image: new File([big], 'big.png', { type: 'image/png' }) }), 'face-blurrer', []),
    )
    expect(error.status).toBe(413)
    expect(error.message).toBe('File too large (max 15MB)')
  })

  it('refuses a declared Content-Length far above the limit before reading', async () => {
    const request = upload({ blur: '20' }, { 'content-length': String(40 * MEGABYTE) })
    const error = await rejection(parseToolUpload(request, 'background-remover', []))
    expect(error.status).toBe(413)
    expect(error.message).toBe('File too large (max 12MB)')
  })

  it('answers 400 for a body that is not multipart, and for a missing or empty file', async () => {
    const json = new Request('http://localhost/x', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect((await rejection(parseToolUpload(json, 'face-blurrer', []))).status).toBe(400)

    const none = await parseToolUpload(upload({ blur: '20' }), 'face-blurrer', ['blur'])
    expect(() => requireFile(none, 'face-blurrer')).toThrow(/Choose an image/)
    const empty = await parseToolUpload(upload({ image: new File([], 'e.png') }), 'face-blurrer', [])
    expect(() => requireFile(empty, 'face-blurrer')).toThrow('The uploaded file is empty.')
  })
})

describe('sniffImageType', () => {
  it('reads the type from the bytes, not the name', async () => {
    const jpeg = await solid(4, 4, '#fff').jpeg().toBuffer()
    expect(await sniffImageType(jpeg, 'face-blurrer')).toBe('image/jpeg')
    const tiff = await solid(4, 4, '#fff').tiff().toBuffer()
    expect(await sniffImageType(tiff, 'image-enhancer')).toBe('image/tiff')
  })

  it('answers 415 for a type the tool does not accept and for unknown bytes', async () => {
    const tiff = await solid(4, 4, '#fff').tiff().toBuffer()
    const wrong = await rejection(sniffImageType(tiff, 'background-remover'))
    expect(wrong.status).toBe(415)
    expect(wrong.message).toBe('Invalid file type. Upload a PNG, JPG or WebP image.')
    const text = await rejection(sniffImageType(Buffer.from('GIF? no, just text pretending to be a picture'), 'face-blurrer'))
    expect(text.status).toBe(415)
  })
})

describe('readImageHeader', () => {
  it('refuses a small file that claims 30000×30000 pixels without decoding it', async () => {
    const bomb = await pixelBomb(30000, 30000)
    expect(bomb.byteLength).toBeLessThan(10_000)
    const error = await rejection(readImageHeader(bomb))
    expect(error.status).toBe(413)
    expect(error.message).toMatch(/Image too large: 30000×30000 pixels/)
  })

  it('refuses a truncated PNG with 400', async () => {
    const png = await solid(64, 64, '#123').png().toBuffer()
    const error = await rejection(readImageHeader(png.subarray(0, 60)))
    expect(error.status).toBe(400)
    expect(error.message).toMatch(/damaged or truncated/)
  })

  it('reports the oriented size', async () => {
    const rotated = await solid(8, 4, '#0f0').jpeg().withMetadata({ orientation: 6 }).toBuffer()
    expect(await readImageHeader(rotated)).toMatchObject({ width: 4, height: 8, pages: 1 })
  })
})

describe('decodeToRgba', () => {
  const pixel = (image: { data: Buffer; width: number }, x: number, y: number) =>
    [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)]

  it('applies the EXIF orientation', async () => {
    const rotated = await solid(8, 4, '#0f0').jpeg().withMetadata({ orientation: 6 }).toBuffer()
    const image = await decodeToRgba(rotated)
    expect([image.width, image.height]).toEqual([4, 8])
    expect(image.data.byteLength).toBe(4 * 8 * 4)
  })

  it('turns grey, palette, 16-bit, CMYK and alpha inputs into sRGB 8-bit RGBA', async () => {
    const grey = await decodeToRgba(await solid(2, 2, '#808080').toColourspace('b-w').png().toBuffer())
    expect(pixel(grey, 0, 0)).toEqual([128, 128, 128, 255])

    const palette = await decodeToRgba(await solid(2, 2, '#123456').png({ palette: true }).toBuffer())
    expect(pixel(palette, 1, 1)).toEqual([0x12, 0x34, 0x56, 255])

    const deep = await decodeToRgba(await solid(2, 2, '#00ff00').toColourspace('rgb16').png().toBuffer())
    expect(deep.data.byteLength).toBe(2 * 2 * 4)
    expect(pixel(deep, 0, 0)).toEqual([0, 255, 0, 255])

    const cmykJpeg = await solid(8, 8, '#ff0000').toColourspace('cmyk').jpeg().toBuffer()
    expect((await sharp(cmykJpeg).metadata()).space).toBe('cmyk')
    const [r, g, b, a] = pixel(await decodeToRgba(cmykJpeg), 4, 4)
    expect(r).toBeGreaterThan(200)
    expect(g).toBeLessThan(60)
    expect(b).toBeLessThan(60)
    expect(a).toBe(255)

    const translucent = await sharp({ create: { width: 2, height: 2, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } })
      .png()
      .toBuffer()
    expect(pixel(await decodeToRgba(translucent), 0, 0)).toEqual([10, 20, 30, 128])
  })

  it('refuses a file whose data is cut short', async () => {
    const jpeg = await solid(256, 256, '#345').jpeg().toBuffer()
    const error = await rejection(decodeToRgba(jpeg.subarray(0, Math.floor(jpeg.byteLength / 2))))
    expect(error.status).toBe(400)
  })
})

describe('decodeUpload', () => {
  it('uses the first frame of an animated image and says so', async () => {
    const red = await solid(8, 6, '#f00').png().toBuffer()
    const blue = await solid(8, 6, '#00f').png().toBuffer()
    const animated = await sharp([red, blue], { join: { animated: true } }).webp({ lossless: true }).toBuffer()
    const decoded = await decodeUpload({ bytes: animated, name: 'anim.webp' }, 'face-blurrer')
    expect([decoded.image.width, decoded.image.height]).toEqual([8, 6])
    expect([...decoded.image.data.subarray(0, 4)]).toEqual([255, 0, 0, 255])
    expect(decoded.notes).toEqual([FIRST_FRAME_NOTE])
  })
})
