// Benchmark of the four model-based tools on fixtures resized to about 1 MP and 12 MP:
// p50/p95 latency, peak RSS, the share of time spent outside the model, and for super-resolution
// the model-only time per input pixel (its compute bound) against the tool's time per pixel.
// Run alone: npx tsx bench/tools.ts [tool ...]   (or as part of npm run bench); the enhancer section
// also times building a denoise blend (`npx tsx bench/tools.ts denoise-blend` for that alone), and
// the run ends with the whole service's peak memory under 8 concurrent 12 MP uploads
// (bench/service-memory.ts; `npx tsx bench/tools.ts memory` for that alone). The remover and the
// blurrer are also given as a multiple of their model-only pipeline, timed in the same loop. The
// remover is measured once per installed background model (models/segmenters.server.ts).
import { predictMatte, removeBackground } from '../app/features/tools/background-remover.server'
import { blurFaces } from '../app/features/tools/face-blurrer.server'
import { detectFaces } from '../app/features/tools/face-detector.server'
import { restoreFaces } from '../app/features/tools/face-restorer.server'
import type { RgbaImage, ToolOutput } from '../app/features/tools/image'
import { enhanceImage, planEnhancement } from '../app/features/tools/image-enhancer.server'
import { acquireSrModel, BLENDED_SESSIONS, releaseBlendedModels } from '../app/features/tools/models/denoise-models.server'
import { threadsPerSession } from '../app/features/tools/models/registry.server'
import { installedSegmenters, type Segmenter } from '../app/features/tools/models/segmenters.server'
import { benchServiceMemory } from './service-memory'
import { fixtureAt, runAsScript } from './support'


interface Case {
  tool: string
  /** The background model, for the remover's cases. */
  model?: string
  fixture: string
  megapixels: number
  runs: number
  run: (image: RgbaImage) => Promise<ToolOutput>
  /** The model-only pipeline (input resize, model, its decoding), timed in the same loop for the ratio. */
  baseline?: { name: string; run: (image: RgbaImage) => Promise<unknown> }
}

/** The remover with one background model, against that model's model-only pipeline. */
function removerCase(segmenter: Segmenter, megapixels: number, runs: number): Case {
  return {
    tool: 'background-remover',
    model: segmenter.id,
    fixture: 'product-gameboy-white-bg.jpg',
    megapixels,
    runs,
    run: (i) => removeBackground(i, { segmenter }),
    baseline: { name: 'model-only pipeline (predictMatte)', run: (i: RgbaImage) => predictMatte(i, segmenter) },
  }
}
const detectionOnly = { name: 'detection only (detectFaces)', run: (i: RgbaImage) => detectFaces(i) }

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]
}

/**
 * Samples RSS while `work` runs; returns the highest value seen (MB). memoryUsage.rss() reads only
 * the RSS: memoryUsage() also gathers V8's heap statistics, a cost on the thread being measured.
 */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 10)
  try {
    const value = await work()
    peak = Math.max(peak, process.memoryUsage.rss())
    return { value, peakMb: Math.round(peak / 1e6) }
  } finally {
    clearInterval(timer)
  }
}

const round = (v: number, digits = 0) => Number(v.toFixed(digits))

/**
 * The enhancer's denoise blend: reading both Real-ESRGAN files, blending their weights and opening a
 * session, as a request at a level not yet cached pays it (once per level, then LRU-cached).
 */
async function benchDenoiseBlend(): Promise<object> {
  const levels = [0.2, 0.4, 0.6, 0.8, 0.3]
  const times: number[] = []
  releaseBlendedModels()
  for (const level of levels) {
    global.gc?.()
    const started = performance.now()
    const lease = await acquireSrModel(level)
    times.push(performance.now() - started)
    lease.done()
  }
  releaseBlendedModels()
  const row = { levels, runs: times.length, p50Ms: round(percentile(times, 50)), maxMs: round(Math.max(...times)), cachedLevels: BLENDED_SESSIONS }
  console.error(`  image-enhancer denoise blend (build + session): p50 ${row.p50Ms} ms, max ${row.maxMs} ms`)
  return row
}

export async function benchTools(only: string[] = []): Promise<object> {
  const all: Case[] = [
    ...installedSegmenters().flatMap((segmenter) => [removerCase(segmenter, 1, 5), removerCase(segmenter, 12, 7)]),
    { tool: 'face-blurrer', fixture: 'portrait-astronaut.png', megapixels: 1, runs: 5, run: (i) => blurFaces(i, { blur: 32 }), baseline: detectionOnly },
    { tool: 'face-blurrer', fixture: 'portrait-astronaut.png', megapixels: 12, runs: 5, run: (i) => blurFaces(i, { blur: 32 }), baseline: detectionOnly },
    { tool: 'face-restorer', fixture: 'portrait-astronaut.png', megapixels: 1, runs: 3, run: (i) => restoreFaces(i) },
    { tool: 'face-restorer', fixture: 'portrait-astronaut.png', megapixels: 12, runs: 2, run: (i) => restoreFaces(i) },
    // The enhancer's model runs on at most 1 MP per request (about 15 s on 2 idle cores): fewer runs.
    { tool: 'image-enhancer', fixture: 'noface-cat-chelsea.png', megapixels: 1, runs: 2, run: (i) => enhanceImage(i) },
    { tool: 'image-enhancer', fixture: 'noface-cat-chelsea.png', megapixels: 12, runs: 1, run: (i) => enhanceImage(i) },
  ]
  const cases = only.length ? all.filter((c) => only.includes(c.tool)) : all
  // `denoise-blend` alone measures only the blend, without the minutes of enhancer runs.
  const blendOnly = only.length === 1 && only[0] === 'denoise-blend'
  const measureBlend = !only.length || blendOnly || only.includes('image-enhancer')
  if (blendOnly) {
    return { threadsPerSession: threadsPerSession(), denoiseBlend: await benchDenoiseBlend() }
  }
  // `memory` alone measures only the whole service under 8 concurrent 12 MP uploads.
  if (only.length === 1 && only[0] === 'memory') return { serviceMemory: await benchServiceMemory() }

  // Warm-up: open every session once on a small picture, outside the measurements.
  const small = await fixtureAt('portrait-astronaut.png', 0.05)
  for (const segmenter of installedSegmenters()) await removeBackground(small, { segmenter })
  await blurFaces(small, { blur: 32 })
  await restoreFaces(small)
  await enhanceImage(await fixtureAt('noface-cat-chelsea.png', 0.01))

  const loadAverageAtStart = (await import('node:os')).loadavg().map((v) => round(v, 2))
  const results = []
  for (const c of cases) {
    const image = await fixtureAt(c.fixture, c.megapixels)
    const pixels = image.width * image.height
    const latencies: number[] = []
    const modelTimes: number[] = []
    let peakMb = 0
    let output: ToolOutput | undefined
    const baselineTimes: number[] = []
    if (c.baseline) {
      // One run of each at this size first, not measured: it pays what a server pays once, not per run
      // (the JIT for this size's code paths, the image threads' start), which would otherwise weigh
      // on a ratio taken from a handful of runs.
      await c.baseline.run(image)
      await c.run(image)
    }
    for (let i = 0; i < c.runs; i++) {
      if (c.baseline) {
        // Interleaved with the tool's runs, so both see the same load on a shared machine.
        global.gc?.()
        const started = performance.now()
        await c.baseline.run(image)
        baselineTimes.push(performance.now() - started)
      }
      global.gc?.()
      const started = performance.now()
      const measured = await withPeakRss(() => c.run(image))
      latencies.push(performance.now() - started)
      modelTimes.push(measured.value.modelMs)
      peakMb = Math.max(peakMb, measured.peakMb)
      output = measured.value
    }
    const totalMs = latencies.reduce((a, b) => a + b, 0)
    const modelMs = modelTimes.reduce((a, b) => a + b, 0)
    const row: Record<string, unknown> = {
      tool: c.tool,
      ...(c.model ? { model: c.model } : {}),
      fixture: c.fixture,
      input: `${image.width}x${image.height}`,
      inputMegapixels: round(pixels / 1e6, 2),
      output: output ? `${output.width}x${output.height}` : null,
      runs: c.runs,
      p50Ms: round(percentile(latencies, 50)),
      p95Ms: round(percentile(latencies, 95)),
      peakRssMb: peakMb,
      modelShare: round(modelMs / totalMs, 3),
      outsideModelShare: round(1 - modelMs / totalMs, 3),
    }
    if (c.baseline) {
      row.baseline = c.baseline.name
      row.baselineP50Ms = round(percentile(baselineTimes, 50))
      row.timesBaseline = round(percentile(latencies, 50) / percentile(baselineTimes, 50), 2)
    }
    if (c.tool === 'image-enhancer') {
      const plan = planEnhancement(image.width, image.height)
      const modelPixels = plan.modelWidth * plan.modelHeight
      row.scale = plan.scale
      row.modelInput = `${plan.modelWidth}x${plan.modelHeight}`
      // Compute bound: what the network alone costs per pixel it sees, against the whole tool per input pixel.
      row.srModelUsPerModelPixel = round(((modelMs / c.runs) * 1000) / modelPixels, 2)
      row.toolUsPerInputPixel = round(((totalMs / c.runs) * 1000) / pixels, 2)
    }
    results.push(row)
    const versus = c.baseline ? `, ${row.timesBaseline}× the ${c.baseline.name} (p50 ${row.baselineP50Ms} ms)` : ''
    console.error(`  ${c.tool}${c.model ? ` (${c.model})` : ''} @ ${row.inputMegapixels} MP: p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms, peak ${peakMb} MB, outside model ${row.outsideModelShare}${versus}`)
  }
  const denoiseBlend = measureBlend ? await benchDenoiseBlend() : undefined
  const serviceMemory = !only.length || only.includes('memory') ? await benchServiceMemory() : undefined
  return {
    serviceMemory,
    threadsPerSession: threadsPerSession(),
    denoiseBlend,
    loadAverageAtStart,
    loadAverageAtEnd: (await import('node:os')).loadavg().map((v) => round(v, 2)),
    cases: results,
  }
}

// Optional arguments name the tools to measure, e.g. `npx tsx bench/tools.ts face-blurrer`
// (`denoise-blend` measures only the enhancer's weight blend).
runAsScript(import.meta.url, () => benchTools(process.argv.slice(2)))
