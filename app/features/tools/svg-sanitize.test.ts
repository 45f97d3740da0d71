import { readFileSync } from 'node:fs'
import { DOMParser } from '@xmldom/xmldom'
import { describe, expect, it } from 'vitest'
import { ToolError } from '../jobs/errors.server'
import { sanitizeSvg } from './svg-sanitize.server'

async function rejection(svg: string | Buffer): Promise<ToolError> {
  try {
    await sanitizeSvg(Buffer.isBuffer(svg) ? svg : Buffer.from(svg))
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

const clean = async (svg: string) => (await sanitizeSvg(Buffer.from(svg))).svg

describe('sanitizeSvg', () => {
  it('says whether the drawing has text (the renderer loads fonts only then)', async () => {
    const svg = (body: string) => sanitizeSvg(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">${body}</svg>`))
    expect((await svg('<rect width="9" height="9"/>')).hasText).toBe(false)
    expect((await svg('<g><text x="1" y="8">a</text></g>')).hasText).toBe(true)
    expect((await sanitizeSvg(readFileSync('tests/fixtures/svg/openclipart-abc-blocks-text.svg'))).hasText).toBe(true)
    expect((await sanitizeSvg(readFileSync('tests/fixtures/svg/tango-user-home.svg'))).hasText).toBe(false)
  })

  it('removes scripts, foreignObject and event handlers', async () => {
    const out = await clean(
      `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">
        <script>alert(2)</script>
        <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>
        <rect width="10" height="10" onclick="alert(3)" fill="red"/>
      </svg>`,
    )
    expect(out).not.toMatch(/script|alert|foreignObject|onload|onclick/i)
    expect(out).toContain('fill="red"')
  })

  it('removes every href and src that is not a #fragment or an embedded raster', async () => {
    const out = await clean(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
        <defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>
        <image href="file:///etc/passwd" width="5" height="5"/>
        <image xlink:href="https://example.com/x.png" width="5" height="5"/>
        <image href="data:image/svg+xml;base64,PHN2Zy8+" width="5" height="5"/>
        <image href="data:image/png;base64,iVBORw0KGgo=" width="5" height="5"/>
        <use xlink:href="#g"/>
        <use href="other.svg#g"/>
      </svg>`,
    )
    expect(out).not.toMatch(/passwd|example\.com|other\.svg|image\/svg\+xml/)
    expect(out).toContain('data:image/png;base64,iVBORw0KGgo=')
    expect(out).toContain('xlink:href="#g"')
  })

  it('rewrites external CSS url() and drops @import, keeping #fragment references', async () => {
    const out = await clean(
      `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">
        <style>@import url("https://example.com/a.css"); rect { fill: url(http://example.com/p.svg#x) }</style>
        <rect width="4" height="4" style="fill:url('file:///etc/hosts')"/>
        <rect width="4" height="4" fill="url(#grad)"/>
      </svg>`,
    )
    expect(out).not.toMatch(/example\.com|@import|\/etc\/hosts/)
    expect(out).toContain('fill="url(#grad)"')
  })

  it('refuses DOCTYPE and ENTITY declarations (XXE, billion laughs) outright', async () => {
    const xxe = await rejection(
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>`,
    )
    expect(xxe.status).toBe(400)
    expect(xxe.message).toMatch(/DOCTYPE or ENTITY/)
    const laughs = await rejection(
      `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>`,
    )
    expect(laughs.status).toBe(400)
    const system = await rejection(`<!DOCTYPE svg SYSTEM "file:///etc/passwd" [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>`)
    expect(system.status).toBe(400)
  })

  it('drops a plain public DOCTYPE, as Inkscape writes it, and never fetches its DTD', async () => {
    const stopwatch = await sanitizeSvg(readFileSync('tests/fixtures/svg/openclipart-stopwatch.svg'))
    expect(stopwatch.svg).not.toMatch(/DOCTYPE/)
    expect(stopwatch.svg.startsWith('<svg')).toBe(true)
    const out = await clean(
      `<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>`,
    )
    expect(out).toBe('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>')
  })

  it('drops an internal subset of attribute defaults and plain-text entities, as Sodipodi and Illustrator write them, writing the entities out', async () => {
    const sodipodi = await clean(
      `<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 20010904//EN"\n"http://www.w3.org/TR/2001/REC-SVG-20010904/DTD/svg10.dtd"\n[\n <!ATTLIST svg\n  xmlns:xlink CDATA #FIXED "http://www.w3.org/1999/xlink">\n]>\n<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>`,
    )
    expect(sodipodi).toBe('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>')
    const illustrator = await clean(
      `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.0//EN" "http://www.w3.org/TR/2001/REC-SVG-20010904/DTD/svg10.dtd" [\n\t<!ENTITY ns_ai "http://ns.adobe.com/AdobeIllustrator/10.0/">\n\t<!ENTITY st0 'fill:#0a0;'>\n]><svg xmlns="http://www.w3.org/2000/svg" xmlns:i="&ns_ai;" width="2" height="2"><rect style="&st0;" width="2" height="2"/></svg>`,
    )
    expect(illustrator).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:i="http://ns.adobe.com/AdobeIllustrator/10.0/" width="2" height="2"><rect style="fill:#0a0;" width="2" height="2"/></svg>',
    )
  })

  it('still refuses a subset entity that holds markup or a reference, and entities that would add more than a megabyte', async () => {
    const markup = await rejection(`<!DOCTYPE svg [<!ENTITY x "<script/>">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>`)
    expect(markup.message).toMatch(/DOCTYPE or ENTITY/)
    const parameter = await rejection(`<!DOCTYPE svg [<!ENTITY % p "x">]><svg xmlns="http://www.w3.org/2000/svg"/>`)
    expect(parameter.message).toMatch(/DOCTYPE or ENTITY/)
    const long = 'a'.repeat(200)
    const bomb = await rejection(`<!DOCTYPE svg [<!ENTITY x "${long}">]><svg xmlns="http://www.w3.org/2000/svg"><text>${'&x;'.repeat(6_000)}</text></svg>`)
    expect(bomb.message).toMatch(/DOCTYPE or ENTITY/)
  })

  it('answers 415 for something that is not an SVG, and 400 for a broken one', async () => {
    expect((await rejection('hello, not xml')).status).toBe(415)
    expect((await rejection('<html><body/></html>')).status).toBe(415)
    expect((await rejection(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).status).toBe(415)
    const broken = await rejection('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>')
    expect(broken.status).toBe(400)
    expect(broken.message).toMatch(/not well-formed/)
  })

  it('adds the SVG namespace when missing so the output still parses as SVG', async () => {
    const out = await clean('<svg width="3" height="2"><rect width="3" height="2"/></svg>')
    const root = new DOMParser().parseFromString(out, 'image/svg+xml').documentElement
    expect(root?.namespaceURI).toBe('http://www.w3.org/2000/svg')
  })

  it('reads the intrinsic size from width/height, units and the viewBox', async () => {
    const size = async (svg: string) => {
      const { width, height } = await sanitizeSvg(Buffer.from(svg))
      return [Math.round(width), Math.round(height)]
    }
    expect(await size('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"/>')).toEqual([120, 80])
    expect(await size('<svg xmlns="http://www.w3.org/2000/svg" width="1in" height="72pt"/>')).toEqual([96, 96])
    expect(await size('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200"/>')).toEqual([400, 200])
    expect(await size('<svg xmlns="http://www.w3.org/2000/svg" width="100" viewBox="0 0 400 200"/>')).toEqual([100, 50])
    expect(await size('<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%"/>')).toEqual([100, 100])
  })
})
