// SVG converter: latency (p50/p95) and peak memory at the tool's 1× and 2× and at about 1 MP and
// 12 MP of output, for the studio's path (resvg in a pooled renderer process → sharp PNG encode)
// against sharp's own SVG loader (librsvg) on the same files at the same output size, in the same run.
//   npx tsx bench/svg.ts            (or npm run bench -- svg)
// BENCH_RUNS (default 7 at 1 MP, half that at 12 MP) sets the runs per case.
// openclipart-digital-camera-gradients.svg is left out: resvg 2.6.2 aborts on it (see STACK.md).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { pathToFileURL } from 'node:url'
import sharp from 'sharp'
import { convertSvg } from '../app/features/tools/svg-converter.server'
import { sanitizeSvg } from '../app/features/tools/svg-sanitize.server'

export const FIXTURES = [
  'tango-internet-web-browser.svg',
  'tango-user-home.svg',
  'openclipart-analog-clock-gradient-text.svg',
  'openclipart-abc-blocks-text.svg',
  'openclipart-stopwatch.svg',
]
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
/** The tool's own scales (1× and 2×: the goal's cases), then about 1 MP and 12 MP of output. */
const TARGETS: { label: string; scale?: number; pixels?: number; runs: number }[] = [
  { label: '1x', scale: 1, runs: RUNS * 2 },
  { label: '2x', scale: 2, runs: RUNS * 2 },
  { label: '1MP', pixels: 1_000_000, runs: RUNS },
  { label: '12MP', pixels: 12_000_000, runs: Math.max(2, Math.ceil(RUNS / 2)) },
]

interface Stats {
  runs: number
  p50Ms: number
  p95Ms: number
  /** Peak RSS of the process that rendered (resvg: the render child; sharp: a process of its own). */
  peakMemoryMB: number
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))
  return Math.round(sorted[index]! * 10) / 10
}

function summarise(times: number[], peakMemoryMB: number): Stats {
  const sorted = [...times].sort((a, b) => a - b)
  return { runs: times.length, p50Ms: percentile(sorted, 0.5), p95Ms: percentile(sorted, 0.95), peakMemoryMB: Math.round(peakMemoryMB) }
}

/** sharp's loader, run in a fresh process per case so its peak memory is measured alone. */
function sharpInChild(file: string, density: number, runs: number): { times: number[]; peakRssKb: number } {
  const out = execFileSync(process.execPath, ['bench/svg-sharp-child.mjs', file, String(density), String(runs)], { encoding: 'utf8' })
  return JSON.parse(out) as { times: number[]; peakRssKb: number }
}

/**
 * The density at which sharp renders `bytes` to about `pixels`. sharp sizes an SVG itself, and for
 * files sized in pt its output grows with the square of the density, so measure the growth.
 */
export async function sharpDensityFor(bytes: Buffer, pixels: number): Promise<number> {
  const at = async (density: number) => (await sharp(bytes, { density }).metadata()).width!
  const base = await at(72)
  const exponent = Math.log2((await at(144)) / base)
  const aspect = (await sharp(bytes).metadata()).height! / base
  const side = Math.sqrt(pixels / aspect)
  return 72 * (side / base) ** (1 / exponent)
}

export async function benchSvg(): Promise<object> {
  const cases: object[] = []
  const rows: string[] = []
  const ratiosAtToolScales: number[] = []
  // One throw-away render first: the pool's renderers start with the first conversion.
  await convertSvg(await sanitizeSvg(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')), { format: 'png', scale: 1 })

  for (const file of FIXTURES) {
    const bytes = readFileSync(`tests/fixtures/svg/${file}`)
    const svg = await sanitizeSvg(bytes)
    for (const target of TARGETS) {
      const scale = target.scale ?? Math.sqrt(target.pixels! / (svg.width * svg.height))
      const studioTimes: number[] = []
      const resvgOnly: number[] = []
      let rendererPeakKb = 0
      let size = ''
      for (let i = 0; i < target.runs; i++) {
        const t0 = performance.now()
        const out = await convertSvg(svg, { format: 'png', scale })
        studioTimes.push(performance.now() - t0)
        rendererPeakKb = Math.max(rendererPeakKb, out.rendererMaxRssKb)
        resvgOnly.push(out.resvgMs.parse + out.resvgMs.render)
        size = `${out.width}×${out.height}`
      }
      const [outWidth, outHeight] = size.split('×').map(Number)
      // sharp renders the same number of pixels as the studio did.
      const density = await sharpDensityFor(bytes, outWidth! * outHeight!)
      const sharpRun = sharpInChild(`tests/fixtures/svg/${file}`, density, target.runs)
      const studio = summarise(studioTimes, rendererPeakKb / 1024)
      const librsvg = summarise(sharpRun.times, sharpRun.peakRssKb / 1024)
      const resvgInside = summarise(resvgOnly, 0).p50Ms
      const ratio = studio.p50Ms / librsvg.p50Ms
      if (target.scale) ratiosAtToolScales.push(ratio)
      cases.push({
        file,
        target: target.label,
        output: size,
        scale: Math.round(scale * 1000) / 1000,
        resvgChildProcess: { ...studio, resvgParseAndRenderP50Ms: resvgInside },
        sharpLibrsvg: librsvg,
        studioOverSharp: Math.round(ratio * 100) / 100,
      })
      rows.push(
        `${file.padEnd(44)} ${target.label.padEnd(5)} ${size.padEnd(10)} resvg p50 ${String(studio.p50Ms).padStart(7)} p95 ${String(studio.p95Ms).padStart(7)} ms (raster ${String(resvgInside).padStart(6)}) ${String(studio.peakMemoryMB).padStart(4)} MB | sharp p50 ${String(librsvg.p50Ms).padStart(7)} p95 ${String(librsvg.p95Ms).padStart(7)} ms ${String(librsvg.peakMemoryMB).padStart(4)} MB`,
      )
      console.log(rows.at(-1))
    }
  }
  const geometricMean = Math.exp(ratiosAtToolScales.reduce((sum, r) => sum + Math.log(r), 0) / ratiosAtToolScales.length)
  console.log(`studio / sharp p50, geometric mean over the fixtures at 1× and 2×: ${geometricMean.toFixed(2)}×`)
  return {
    note: 'resvg = the studio path (render in a pooled renderer process, straight alpha, PNG encode with sharp in this process); memory = the renderer process peak RSS (VmHWM). sharp = sharp(svg, {density}).png() (librsvg) in a process of its own, at the density giving the same pixel count; memory = that process peak RSS. Both include a Node process (~45 MB).',
    studioOverSharpGeometricMeanAt1xAnd2x: Math.round(geometricMean * 100) / 100,
    loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
    cases,
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await benchSvg(), null, 2))
  process.exit(0)
}
