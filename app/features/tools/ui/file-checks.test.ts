import { readFile } from 'node:fs/promises'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { browserCanShow, inspectFile, sniffType } from './file-checks'

const fixture = (name: string) => readFile(`tests/fixtures/${name}`)

describe('the real type from the first bytes', () => {
  it('reads PNG, JPEG, WebP, TIFF and SVG from real files', async () => {
    const png = await fixture('photos/product-router-alpha-groundtruth.png')
    expect(sniffType(png)).toBe('image/png')
    expect(sniffType(await fixture('photos/noface-rocket.jpg'))).toBe('image/jpeg')
    expect(sniffType(await sharp(png).webp().toBuffer())).toBe('image/webp')
    expect(sniffType(await sharp(png).tiff().toBuffer())).toBe('image/tiff')
    expect(sniffType(await sharp(png).tiff({ bigtiff: false }).toBuffer())).toBe('image/tiff')
    expect(sniffType(await fixture('svg/tango-user-home.svg'))).toBe('image/svg+xml')
    expect(sniffType(new TextEncoder().encode('<!-- made by hand -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('image/svg+xml')
  })

  it('names what it is not: text, GIF, PDF', () => {
    expect(sniffType(new TextEncoder().encode('hello, I am a text file named photo.png'))).toBeNull()
    expect(sniffType(new TextEncoder().encode('GIF89a...'))).toBe('image/gif')
    expect(sniffType(new TextEncoder().encode('%PDF-1.7'))).toBe('application/pdf')
  })
})

describe('checks before upload', () => {
  it('refuses a text file renamed .png, whatever type the browser gave it', async () => {
    const file = new File(['just some text'], 'photo.png', { type: 'image/png' })
    const verdict = await inspectFile(TOOLS['background-remover'], file)
    expect(verdict).toEqual({ ok: false, message: 'Invalid file type: the file is not an image this tool can read. Choose a PNG, JPG or WebP image.' })
  })

  it('refuses a TIFF where it is not accepted, and takes it where it is, typed by its bytes', async () => {
    const tiff = await sharp(await fixture('photos/degraded-face-crop-64px.jpg')).tiff().toBuffer()
    const untyped = new File([new Uint8Array(tiff)], 'scan.tif', { type: '' })
    expect(await inspectFile(TOOLS['background-remover'], untyped)).toMatchObject({ ok: false, message: expect.stringContaining('this is a TIFF image') })
    const verdict = await inspectFile(TOOLS['image-enhancer'], untyped)
    expect(verdict.ok).toBe(true)
    if (verdict.ok) expect(verdict.file.type).toBe('image/tiff')
    expect(browserCanShow('image/tiff')).toBe(false)
    expect(browserCanShow('image/png')).toBe(true)
  })

  it("names the tool's limit and the file's size when it is too large", async () => {
    const png = await fixture('photos/product-router-alpha-groundtruth.png')
    const big = new File([new Uint8Array(png), new Uint8Array(12 * MEGABYTE)], 'big.png', { type: 'image/png' })
    const verdict = await inspectFile(TOOLS['background-remover'], big)
    expect(verdict).toMatchObject({ ok: false, message: expect.stringMatching(/^File too large \(max 12MB\): this file is 12\.05 MB\.$/) })
  })

  it('refuses an empty file', async () => {
    expect(await inspectFile(TOOLS['face-blurrer'], new File([], 'empty.png'))).toMatchObject({ ok: false })
  })
})
