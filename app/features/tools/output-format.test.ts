// The default output rule (decision 173): an opaque result follows its upload's family, a result
// with alpha stays PNG, an explicit format wins; and the JPEG quality read from the upload's tables.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { ToolError } from '../jobs/errors.server'
import {
  chooseEncoding,
  convertResult,
  FLATTENED_NOTE,
  FORMAT_MESSAGE,
  inputFamily,
  JPEG_QUALITY,
  jpegQuality,
  jpegQualityFor,
  nameForType,
  parseFormatField,
  requestedFormat,
} from './output-format.server'

// A photo-like picture (gradients and noise), so that the encoders have something to do.
async function picture(width = 96, height = 64): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      data[i] = (x * 255) / width
      data[i + 1] = (y * 255) / height
      data[i + 2] = (x * y * 7 + ((x * 13) ^ (y * 29))) % 256
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } }).png().toBuffer()
}

const jpegAt = async (quality: number) => sharp(await picture()).jpeg({ quality }).toBuffer()
const opaquePng = () => picture()
const transparentPng = async () => sharp(await picture()).ensureAlpha(0.5).png().toBuffer()

describe('jpegQuality', () => {
  it.each([35, 50, 75, 90, 95])('reads libjpeg quality %i back from the tables', async (quality) => {
    expect(jpegQuality(await jpegAt(quality))).toBe(quality)
  })

  it('is null for a file without tables', async () => {
    expect(jpegQuality(await opaquePng())).toBeNull()
  })
})

describe('inputFamily', () => {
  it('tells JPEG, lossy and lossless WebP, and everything else apart from the bytes', async () => {
    expect(inputFamily(await jpegAt(75))).toEqual({ kind: 'jpeg', quality: 75 })
    expect(inputFamily(await sharp(await picture()).webp({ quality: 80 }).toBuffer())).toEqual({ kind: 'webp', lossless: false })
    expect(inputFamily(await sharp(await picture()).webp({ lossless: true }).toBuffer())).toEqual({ kind: 'webp', lossless: true })
    // An extended WebP (with alpha) lists its chunks before the image's.
    expect(inputFamily(await sharp(await transparentPng()).webp({ quality: 80 }).toBuffer())).toEqual({ kind: 'webp', lossless: false })
    expect(inputFamily(await opaquePng())).toEqual({ kind: 'other' })
  })
})

describe('chooseEncoding (the default rule)', () => {
  it('gives an opaque result of a JPEG a JPEG at the upload’s quality, within the measured range', async () => {
    expect(chooseEncoding('auto', await jpegAt(78), true)).toEqual({ format: 'jpg', jpegQuality: 78 + JPEG_QUALITY.headroom })
    expect(chooseEncoding('auto', await jpegAt(95), true)).toEqual({ format: 'jpg', jpegQuality: JPEG_QUALITY.ceiling })
    expect(chooseEncoding('auto', await jpegAt(35), true)).toEqual({ format: 'jpg', jpegQuality: JPEG_QUALITY.floor })
  })

  it('keeps a result with alpha PNG whatever the upload was', async () => {
    expect(chooseEncoding('auto', await jpegAt(85), false)).toEqual({ format: 'png' })
  })

  it('follows a WebP upload, lossy or lossless, and keeps PNG for PNG (and any other) uploads', async () => {
    const lossy = await sharp(await picture()).webp({ quality: 80 }).toBuffer()
    const lossless = await sharp(await picture()).webp({ lossless: true }).toBuffer()
    expect(chooseEncoding('auto', lossy, true)).toEqual({ format: 'webp', webpLossless: false })
    expect(chooseEncoding('auto', lossless, true)).toEqual({ format: 'webp', webpLossless: true })
    expect(chooseEncoding('auto', await opaquePng(), true)).toEqual({ format: 'png' })
  })

  it('lets an explicit format win over the upload', async () => {
    const jpeg = await jpegAt(85)
    expect(chooseEncoding('png', jpeg, true)).toEqual({ format: 'png' })
    expect(chooseEncoding('webp', jpeg, true)).toEqual({ format: 'webp', webpLossless: false })
    expect(chooseEncoding('jpg', await opaquePng(), false)).toEqual({ format: 'jpg', jpegQuality: jpegQualityFor({ kind: 'other' }) })
  })
})

describe('the format field', () => {
  it('leaves the default (absent, empty, auto) out of the options and keeps an explicit png', () => {
    expect(parseFormatField({})).toEqual({})
    expect(parseFormatField({ format: '' })).toEqual({})
    expect(parseFormatField({ format: 'AUTO' })).toEqual({})
    expect(parseFormatField({ format: 'png' })).toEqual({ format: 'png' })
    expect(parseFormatField({ format: 'jpeg' })).toEqual({ format: 'jpg' })
    expect(parseFormatField({ format: 'webp' })).toEqual({ format: 'webp' })
  })

  it('refuses anything else with the message that lists the choices', () => {
    expect(() => parseFormatField({ format: 'gif' })).toThrow(new ToolError(400, FORMAT_MESSAGE))
  })

  it('reads options without a format as auto', () => {
    expect(requestedFormat({})).toBe('auto')
    expect(requestedFormat({ format: 'png' })).toBe('png')
  })
})

describe('convertResult', () => {
  it('answers a JPEG upload’s opaque result as a JPEG by default', async () => {
    const out = await convertResult(await opaquePng(), 'auto', await jpegAt(80))
    expect(out.contentType).toBe('image/jpeg')
    expect((await sharp(out.bytes).metadata()).format).toBe('jpeg')
    expect(jpegQuality(out.bytes)).not.toBeNull()
  })

  it('passes a result with alpha through untouched by default', async () => {
    const png = await transparentPng()
    const out = await convertResult(png, 'auto', await jpegAt(80))
    expect(out).toEqual({ bytes: png, contentType: 'image/png', note: null })
  })

  it('puts a transparent result asked for as JPEG on white and says so', async () => {
    const out = await convertResult(await transparentPng(), 'jpg', await opaquePng())
    expect([out.contentType, out.note]).toEqual(['image/jpeg', FLATTENED_NOTE])
  })
})

describe('nameForType', () => {
  it('gives the download name the delivered type’s extension', () => {
    expect(nameForType('face-blurred.png', 'image/jpeg')).toBe('face-blurred.jpg')
    expect(nameForType('photo-enhanced.png', 'image/webp')).toBe('photo-enhanced.webp')
    expect(nameForType('converted.jpeg', 'image/jpeg')).toBe('converted.jpeg')
    expect(nameForType('background-removed.png', 'image/png')).toBe('background-removed.png')
  })
})
