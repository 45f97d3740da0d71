// Renders one sanitised SVG in a process of its own, then exits. resvg 2.6 can abort the whole
// process on some files (a Rust panic: SIGABRT that nothing can catch), so the server never
// renders untrusted SVG in its own process. Plain JavaScript so that plain `node` runs it, in
// development, tests and production alike.
//
// Protocol (IPC, advanced serialisation): the parent sends
//   { svg: string, scale: number, maxPixels: number, maxSide: number }
// and receives { ok: true, width, height, pixels (premultiplied RGBA, as resvg makes them), timings } or
//   { ok: false, status, error }, both with maxRssKb (this process's peak memory).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Resvg } from '@resvg/resvg-js'

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

function render({ svg, scale, maxPixels, maxSide }) {
  const t0 = performance.now()
  let resvg
  try {
    resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: scale },
      font: {
        fontFiles: FONT_FILES,
        loadSystemFonts: false,
        defaultFontFamily: 'DejaVu Sans',
        sansSerifFamily: 'DejaVu Sans',
        serifFamily: 'DejaVu Serif',
        monospaceFamily: 'DejaVu Sans Mono',
      },
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
  const pixels = image.pixels
  const timings = { parseMs: t1 - t0, renderMs: t2 - t1 }
  return { ok: true, width: image.width, height: image.height, pixels, timings }
}

// A spare renderer waits, already started, for its one job; if the server goes away first, so does it.
process.once('disconnect', () => process.exit(0))

// Peak resident memory of this process in kB. Linux's VmHWM belongs to this program alone;
// getrusage's maxRSS would include the parent's memory at fork time (it survives exec).
function peakRssKb() {
  try {
    const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    if (match) return Number(match[1])
  } catch {}
  return process.resourceUsage().maxRSS
}

process.once('message', (job) => {
  let answer
  try {
    answer = render(job)
  } catch (error) {
    answer = { ok: false, status: 422, error: `This SVG could not be rendered: ${String(error?.message ?? error).slice(0, 200)}` }
  }
  // The renderer's own peak memory, for the benchmark (the parent never sees it otherwise).
  answer.maxRssKb = peakRssKb()
  process.send(answer, () => process.disconnect())
})
