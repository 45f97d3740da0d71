// A long-lived SVG renderer, one of the pool in svg-renderer-pool.server.ts. resvg 2.6 can abort
// the whole process on some files (a Rust panic: SIGABRT that nothing can catch), so the server
// never renders untrusted SVG in its own process. Plain JavaScript so that plain `node` runs it, in
// development, tests and production alike.
//
// Protocol (IPC, advanced serialisation), one job at a time: the parent sends
//   { id: number, svg: string, scale: number, format: 'png' | 'jpeg' | 'webp', background?: string, fonts: boolean, maxPixels: number, maxSide: number }
// and receives { id, ok: true, width, height, bytes (the encoded file), timings } or
//   { id, ok: false, status, error }, both with maxRssKb (this process's peak memory).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Resvg } from '@resvg/resvg-js'
import sharp from 'sharp'

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

// sharp writes no metadata unless asked to (withMetadata), so outputs carry none.
async function encode(image, format, background) {
  const size = { width: image.width, height: image.height, channels: 4 }
  // Flattening reads the premultiplied pixels as they are (not the straight ones), so it stays with sharp.
  let pipeline = background
    ? sharp(image.pixels, { raw: { ...size, premultiplied: true } }).flatten({ background })
    : sharp(unpremultiply(image.pixels), { raw: size })
  if (format === 'png') pipeline = pipeline.png()
  else if (format === 'jpeg') pipeline = pipeline.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })
  else pipeline = pipeline.webp({ quality: 92, alphaQuality: 100 })
  return pipeline.toBuffer()
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

async function render({ svg, scale, format, background, fonts, maxPixels, maxSide }) {
  const t0 = performance.now()
  let resvg
  try {
    resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: scale },
      font: fonts ? FONTS : NO_FONTS,
      logLevel: 'off',
    })
  } catch (error) {
    return { ok: false, status: 400, error: `The SVG could not be read: ${String(error?.message ?? error).slice(0, 200)}` }
  }
  const width = Math.ceil(resvg.width * scale)
  const height = Math.ceil(resvg.height * scale)
  if (width * height > maxPixels || width > maxSide || height > maxSide) {
    return {
      ok: false,
      status: 400,
      error: `The rendered image would be ${width}×${height} pixels; the limit is ${maxPixels / 1e6} megapixels and ${maxSide} pixels a side. Choose a smaller scale.`,
    }
  }
  const t1 = performance.now()
  const image = resvg.render()
  const t2 = performance.now()
  // Encoded here, so only the compressed file crosses to the server, and libvips works under
  // this process's memory limit too.
  const bytes = await encode(image, format, background)
  const timings = { parseMs: t1 - t0, renderMs: t2 - t1, encodeMs: performance.now() - t2 }
  return { ok: true, width: image.width, height: image.height, bytes, timings }
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
