// A long-lived SVG renderer, one of the pool in svg-renderer-pool.server.ts. resvg 2.6 can abort
// the whole process on some files (a Rust panic: SIGABRT that nothing can catch), so the server
// never renders untrusted SVG in its own process. resvg draws first; a file it throws on while
// drawing is drawn by librsvg (inside sharp) instead, and the pool asks for librsvg alone when resvg took
// the process down (decision 164). Plain JavaScript so that plain `node` runs it, in development,
// tests and production alike.
//
// Protocol (IPC, advanced serialisation), one job at a time: the parent sends
//   { id: number, svg: string, width: number, height: number (the SVG's own size in CSS px), scale: number,
//     format: 'png' | 'jpeg' | 'webp', background?: string, fonts: boolean, maxPixels: number, maxSide: number,
//     renderer: 'resvg' | 'librsvg' (librsvg: skip resvg) }
// and receives { id, ok: true, width, height, bytes (the encoded file), timings, renderer, resvgError? } or
//   { id, ok: false, status, error, bothFailed? }, both with maxRssKb (this process's peak memory).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { Resvg } from '@resvg/resvg-js'
import { DOMParser, XMLSerializer } from '@xmldom/xmldom'

const require = createRequire(import.meta.url)
const fontDir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf')
const FONT_FILES = [
  'DejaVuSans.ttf',
  'DejaVuSans-Bold.ttf',
  'DejaVuSans-Oblique.ttf',
  'DejaVuSans-BoldOblique.ttf',
  'DejaVuSerif.ttf',
  'DejaVuSerif-Bold.ttf',
  'DejaVuSansMono.ttf',
].map((file) => path.join(fontDir, file))

// librsvg finds fonts through fontconfig. It is given the files resvg loads and nothing else (not
// the machine's fonts, nor the package's other files), with a family it does not know falling back to
// sans-serif, DejaVu Sans, as in resvg: text looks the same on any machine. libvips reads the variable
// as it loads: sharp is imported only after it is set.
const fontconfigDir = mkdtempSync(path.join(os.tmpdir(), 'facet-svg-fonts-'))
const GENERIC_FAMILIES = { 'sans-serif': 'DejaVu Sans', serif: 'DejaVu Serif', monospace: 'DejaVu Sans Mono' }
writeFileSync(
  path.join(fontconfigDir, 'fonts.conf'),
  `<?xml version="1.0"?><fontconfig><dir>${fontDir}</dir><cachedir>${fontconfigDir}</cachedir>` +
    `<selectfont><rejectfont><glob>${fontDir}/*</glob></rejectfont>` +
    `<acceptfont>${FONT_FILES.map((file) => `<glob>${file}</glob>`).join('')}</acceptfont></selectfont>` +
    '<match target="pattern"><edit name="family" mode="append_last"><string>sans-serif</string></edit></match>' +
    Object.entries(GENERIC_FAMILIES)
      .map(([generic, family]) => `<alias><family>${generic}</family><prefer><family>${family}</family></prefer></alias>`)
      .join('') +
    '</fontconfig>',
)
process.env.FONTCONFIG_FILE = path.join(fontconfigDir, 'fonts.conf')
process.once('exit', () => rmSync(fontconfigDir, { recursive: true, force: true }))
const { default: sharp } = await import('sharp')

// resvg's pixels are premultiplied. sharp would turn them back into straight alpha as it encodes
// (`premultiplied: true`), through floating point: half of a PNG encode's time. The same conversion,
// read once from sharp itself as a table (the colour byte for each alpha and premultiplied colour
// byte), gives the same pixels with table look-ups, and none at all where alpha is 255.
async function unpremultiplyTable() {
  const pairs = Buffer.alloc(256 * 256 * 4)
  for (let alpha = 0; alpha < 256; alpha++) {
    for (let colour = 0; colour < 256; colour++) pairs.fill(colour, (alpha * 256 + colour) * 4, (alpha * 256 + colour) * 4 + 3)
    for (let colour = 0; colour < 256; colour++) pairs[(alpha * 256 + colour) * 4 + 3] = alpha
  }
  const straight = await sharp(pairs, { raw: { width: 256, height: 256, channels: 4, premultiplied: true } }).raw().toBuffer()
  const table = new Uint8Array(256 * 256)
  for (let i = 0; i < table.length; i++) table[i] = straight[i * 4]
  return table
}
const UNPREMULTIPLY = await unpremultiplyTable()
const OPAQUE_UNCHANGED = UNPREMULTIPLY.subarray(255 * 256).every((value, colour) => value === colour)

/** Premultiplied RGBA to straight alpha, in place. */
function unpremultiply(pixels) {
  for (let i = 0; i < pixels.length; i += 4) {
    const alpha = pixels[i + 3]
    if (alpha === 255 && OPAQUE_UNCHANGED) continue
    const row = alpha << 8
    pixels[i] = UNPREMULTIPLY[row + pixels[i]]
    pixels[i + 1] = UNPREMULTIPLY[row + pixels[i + 1]]
    pixels[i + 2] = UNPREMULTIPLY[row + pixels[i + 2]]
  }
  return pixels
}

/** The output format's encoder on a sharp pipeline (the same settings whichever renderer drew). */
function encoder(pipeline, format) {
  if (format === 'png') return pipeline.png()
  if (format === 'jpeg') return pipeline.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })
  return pipeline.webp({ quality: 92, alphaQuality: 100 })
}

// sharp writes no metadata unless asked to (withMetadata), so outputs carry none.
async function encode(image, format, background) {
  const size = { width: image.width, height: image.height, channels: 4 }
  // Flattening reads the premultiplied pixels as they are (not the straight ones), so it stays with sharp.
  const pipeline = background
    ? sharp(image.pixels, { raw: { ...size, premultiplied: true } }).flatten({ background })
    : sharp(unpremultiply(image.pixels), { raw: size })
  return encoder(pipeline, format).toBuffer()
}

const FONTS = {
  fontFiles: FONT_FILES,
  loadSystemFonts: false,
  defaultFontFamily: 'DejaVu Sans',
  sansSerifFamily: 'DejaVu Sans',
  serifFamily: 'DejaVu Serif',
  monospaceFamily: 'DejaVu Sans Mono',
}
// resvg reads the font files again for every render: a drawing without text skips them.
const NO_FONTS = { loadSystemFonts: false }

/** The output's size in pixels, checked against the limits before anything is drawn. */
function outputSize(width, height, scale, maxPixels, maxSide) {
  const out = { width: Math.ceil(width * scale), height: Math.ceil(height * scale) }
  if (out.width * out.height > maxPixels || out.width > maxSide || out.height > maxSide) {
    return {
      refusal: {
        ok: false,
        status: 400,
        error: `The rendered image would be ${out.width}×${out.height} pixels; the limit is ${maxPixels / 1e6} megapixels and ${maxSide} pixels a side. Choose a smaller scale.`,
      },
    }
  }
  return out
}

function reason(error) {
  return String(error?.message ?? error).slice(0, 200)
}

async function renderWithResvg({ svg, scale, format, background, fonts, maxPixels, maxSide }) {
  const t0 = performance.now()
  let resvg
  try {
    resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: scale },
      font: fonts ? FONTS : NO_FONTS,
      logLevel: 'off',
    })
  } catch (error) {
    // Refused as before, not passed on: resvg reads any well-formed SVG (the sanitiser's output) and
    // refuses only files without a size or elements, or past its element limit.
    return { ok: false, status: 400, error: `The SVG could not be read: ${reason(error)}` }
  }
  const size = outputSize(resvg.width, resvg.height, scale, maxPixels, maxSide)
  if (size.refusal) return size.refusal
  const t1 = performance.now()
  let image
  try {
    image = resvg.render()
  } catch (error) {
    // A panic that resvg turns into an error (its 2.7 line) rather than an abort.
    return { ok: false, status: 422, error: `This SVG could not be rendered: ${reason(error)}`, tryLibrsvg: true }
  }
  const t2 = performance.now()
  // Encoded here, so only the compressed file crosses to the server, and libvips works under
  // this process's memory limit too.
  const bytes = await encode(image, format, background)
  const timings = { parseMs: t1 - t0, renderMs: t2 - t1, encodeMs: performance.now() - t2 }
  return { ok: true, width: image.width, height: image.height, bytes, timings, renderer: 'resvg' }
}

const CSS_DPI = 96
const LIBVIPS_DPI = 72

/**
 * The SVG with its root sized for librsvg. libvips draws an SVG at `density / 72` times its size, and
 * librsvg converts physical units (mm, pt) at that density: at 96 dpi they mean what they mean in CSS
 * and in resvg, and a root `width` of 3/4 of the output comes out at the output's size. A root
 * without a viewBox gets one of its own size, so the drawing scales with it.
 */
function sizedForLibrsvg(svg, width, height, out) {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml')
  const root = doc.documentElement
  if (!root.getAttribute('viewBox')) root.setAttribute('viewBox', `0 0 ${width} ${height}`)
  root.setAttribute('width', String((out.width * LIBVIPS_DPI) / CSS_DPI))
  root.setAttribute('height', String((out.height * LIBVIPS_DPI) / CSS_DPI))
  return Buffer.from(new XMLSerializer().serializeToString(doc))
}

async function renderWithLibrsvg({ svg, width, height, scale, format, background, maxPixels, maxSide }) {
  const size = outputSize(width, height, scale, maxPixels, maxSide)
  if (size.refusal) return size.refusal
  const t0 = performance.now()
  try {
    // The pixel limit again inside libvips, in case librsvg reads the size differently.
    let pipeline = sharp(sizedForLibrsvg(svg, width, height, size), { density: CSS_DPI, limitInputPixels: maxPixels })
    if (background) pipeline = pipeline.flatten({ background })
    const { data, info } = await encoder(pipeline, format).toBuffer({ resolveWithObject: true })
    const timings = { parseMs: 0, renderMs: performance.now() - t0, encodeMs: 0 }
    return { ok: true, width: info.width, height: info.height, bytes: data, timings, renderer: 'librsvg' }
  } catch (error) {
    return { ok: false, status: 422, error: `This SVG could not be rendered: ${reason(error)}` }
  }
}

/** resvg first (faster, and what the studio's outputs are measured with); librsvg for what it cannot draw. */
async function render(job) {
  if (job.renderer === 'librsvg') return renderWithLibrsvg(job)
  const drawn = await renderWithResvg(job)
  if (drawn.ok || !drawn.tryLibrsvg) return drawn
  const fallback = await renderWithLibrsvg(job)
  // The pool tells the caller that neither could draw it.
  if (!fallback.ok) return { ok: false, status: 422, error: `${drawn.error}; librsvg: ${fallback.error}`, bothFailed: true }
  return { ...fallback, resvgError: drawn.error }
}

// Peak resident memory of this process in kB. Linux's VmHWM belongs to this program alone;
// getrusage's maxRSS would include the parent's memory at fork time (it survives exec).
function peakRssKb() {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    if (match) return Number(match[1])
  } catch {}
  return process.resourceUsage().maxRSS
}

// One render at a time, for as long as the server keeps the channel open; when it closes (the
// server retires this renderer or goes away), so does this process.
process.once('disconnect', () => process.exit(0))
process.on('message', async (job) => {
  let answer
  try {
    answer = await render(job)
  } catch (error) {
    answer = { ok: false, status: 422, error: `This SVG could not be rendered: ${String(error?.message ?? error).slice(0, 200)}` }
  }
  answer.id = job.id
  // The renderer's own peak memory, for the benchmark (the parent never sees it otherwise).
  answer.maxRssKb = peakRssKb()
  process.send(answer)
})
// Fonts and resvg are loaded: the pool may start timing renders from here.
process.send({ ready: true })
