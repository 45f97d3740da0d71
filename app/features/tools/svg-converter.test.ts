import { readFileSync } from 'node:fs'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { checkOutputSize, convertSvg, parseBackground } from './svg-converter.server'
import { sanitizeSvg } from './svg-sanitize.server'

const fixture = (name: string) => readFileSync(`tests/fixtures/svg/${name}`)
const svg = (body: string, size = 'width="40" height="20"') =>
  sanitizeSvg(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" ${size}>${body}</svg>`))

describe('convertSvg', () => {
  it('renders a drawing without text the same with or without the fonts loaded', async () => {
    const home = await sanitizeSvg(fixture('tango-user-home.svg'))
    expect(home.hasText).toBe(false)
    const pixels = async (hasText: boolean) =>
      sharp((await convertSvg({ ...home, hasText }, { format: 'png', scale: 2 })).bytes).raw().toBuffer()
    expect((await pixels(false)).equals(await pixels(true))).toBe(true)
  })

  it('renders at the chosen scale, keeping alpha in PNG and WebP without a background', async () => {
    const half = await svg('<rect width="20" height="20" fill="#ff0000"/>')
    const png = await convertSvg(half, { format: 'png', scale: 2 })
    expect([png.width, png.height]).toEqual([80, 40])
    const meta = await sharp(png.bytes).metadata()
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 80, 40, true])
    const { data } = await sharp(png.bytes).raw().toBuffer({ resolveWithObject: true })
    expect([...data.subarray(0, 4)]).toEqual([255, 0, 0, 255])
    expect(data[(40 * 80 - 1) * 4 + 3]).toBe(0)

    const webp = await convertSvg(half, { format: 'webp', scale: 0.75 })
    expect(await sharp(webp.bytes).metadata()).toMatchObject({ format: 'webp', width: 30, height: 15, hasAlpha: true })
  })

  it('un-premultiplies exactly as sharp does (every alpha and colour byte, through the renderer’s table)', async () => {
    // 256 columns of alpha by 256 rows of colour, drawn with crisp edges so each pixel keeps its own value.
    const rects: string[] = []
    for (let alpha = 1; alpha < 256; alpha += 2) {
      for (let colour = 0; colour < 256; colour += 5) {
        rects.push(`<rect x="${alpha}" y="${colour}" width="1" height="5" fill="rgb(${colour},${255 - colour},${(colour * 7) % 256})" fill-opacity="${alpha / 255}"/>`)
      }
    }
    const drawing = await svg(`<g shape-rendering="crispEdges">${rects.join('')}</g>`, 'width="256" height="256"')
    const png = await convertSvg(drawing, { format: 'png', scale: 1 })
    const { Resvg } = await import('@resvg/resvg-js')
    const premultiplied = new Resvg(drawing.svg, { font: { loadSystemFonts: false } }).render()
    const expected = await sharp(premultiplied.pixels, { raw: { width: 256, height: 256, channels: 4, premultiplied: true } }).raw().toBuffer()
    expect((await sharp(png.bytes).raw().toBuffer()).equals(expected)).toBe(true)
  })

  it('un-premultiplies translucent pixels', async () => {
    const translucent = await svg('<rect width="40" height="20" fill="#ff0000" fill-opacity="0.5"/>')
    const png = await convertSvg(translucent, { format: 'png', scale: 1 })
    const { data } = await sharp(png.bytes).raw().toBuffer({ resolveWithObject: true })
    expect(data[0]).toBe(255)
    expect(data[3]).toBeGreaterThan(120)
    expect(data[3]).toBeLessThan(135)
  })

  it('flattens JPEG on white by default and applies a sent background', async () => {
    const empty = await svg('<rect width="10" height="10" fill="#000"/>')
    const jpeg = await convertSvg(empty, { format: 'jpeg', scale: 1 })
    const meta = await sharp(jpeg.bytes).metadata()
    expect([meta.format, meta.hasAlpha, meta.exif, meta.icc]).toEqual(['jpeg', false, undefined, undefined])
    const { data } = await sharp(jpeg.bytes).raw().toBuffer({ resolveWithObject: true })
    const corner = [...data.subarray((20 * 40 - 1) * 3, (20 * 40) * 3)]
    expect(corner.every((v) => v > 245)).toBe(true)

    const onBlue = await convertSvg(empty, { format: 'png', scale: 1, background: '#0000ff' })
    const blue = await sharp(onBlue.bytes).raw().toBuffer({ resolveWithObject: true })
    expect(blue.info.channels).toBe(3)
    expect([...blue.data.subarray((20 * 40 - 1) * 3)]).toEqual([0, 0, 255])
  })

  it('draws text with the bundled fonts', async () => {
    const blank = await svg('<rect width="200" height="60" fill="#fff"/>', 'width="200" height="60"')
    const text = await svg(
      '<rect width="200" height="60" fill="#fff"/><text x="10" y="40" font-size="30" font-family="Arial">Facet</text>',
      'width="200" height="60"',
    )
    const dark = async (s: typeof blank) => {
      const { data } = await sharp((await convertSvg(s, { format: 'png', scale: 1 })).bytes)
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true })
      return data.filter((v) => v < 128).length
    }
    expect(await dark(blank)).toBe(0)
    expect(await dark(text)).toBeGreaterThan(100)
  })

  it('renders the fixtures with text and gradients', async () => {
    const clock = await sanitizeSvg(fixture('openclipart-analog-clock-gradient-text.svg'))
    const out = await convertSvg(clock, { format: 'png', scale: 1 })
    expect(out.width).toBe(Math.ceil(clock.width))
  })

  it('refuses an output over the pixel cap before rendering', async () => {
    const huge = await svg('<rect width="10" height="10"/>', 'width="5000" height="5000"')
    expect(() => checkOutputSize(huge, 3)).toThrow(/15000×15000 pixels; the limit is 40 megapixels/)
    await expect(convertSvg(huge, { format: 'png', scale: 3 })).rejects.toMatchObject({ status: 400 })
  })
})

describe('parseBackground', () => {
  it('accepts CSS colours, defaults empty to white and refuses the rest', async () => {
    expect(await parseBackground('#123abc')).toBe('#123abc')
    expect(await parseBackground('rebeccapurple')).toBe('rebeccapurple')
    expect(await parseBackground('  ')).toBe('#ffffff')
    await expect(parseBackground('not-a-colour')).rejects.toMatchObject({ status: 400 })
  })
})
