// How long the main event loop stands still while a tool runs in this process (as in web + worker
// mode, `npm start`): monitorEventLoopDelay's max and p99 during an enhancer run and a 12 MP
// background removal, plus the longest gap between the ticks of a 5 ms timer. docs/decisions/070.
// Run: npx tsx bench/event-loop.ts [runs per case, default 2]
import os from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { removeBackground } from '../app/features/tools/background-remover.server'
import type { RgbaImage, ToolOutput } from '../app/features/tools/image'
import { enhanceImage } from '../app/features/tools/image-enhancer.server'
import { threadsPerSession } from '../app/features/tools/models/registry.server'
import { fixtureAt, runAsScript } from './support'


const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits

/** Runs `work` under the event-loop monitors; figures in milliseconds. */
async function watched(work: () => Promise<ToolOutput>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  let last = performance.now()
  let longestGap = 0
  let ticks = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longestGap = Math.max(longestGap, now - last)
    last = now
    ticks++
  }, 5)
  histogram.enable()
  const started = performance.now()
  const output = await work()
  const runMs = performance.now() - started
  histogram.disable()
  clearInterval(timer)
  longestGap = Math.max(longestGap, performance.now() - last)
  return {
    runMs: round(runMs, 0),
    modelMs: round(output.modelMs ?? 0, 0),
    loopDelayMaxMs: round(histogram.max / 1e6),
    loopDelayP99Ms: round(histogram.percentile(99) / 1e6),
    loopDelayMeanMs: round(histogram.mean / 1e6),
    longestTimerGapMs: round(longestGap),
    timerTicks: ticks,
  }
}

export async function benchEventLoop(runs = 2): Promise<Record<string, unknown>> {
  const cases = [
    // The photo size decision 021 measured the stalls with (400 × 300: four 256-px tiles at 4×).
    { name: 'image-enhancer 400x300', image: await fixtureAt('noface-cat-chelsea.png', 0.12), run: (i: RgbaImage) => enhanceImage(i) },
    { name: 'background-remover 12 MP', image: await fixtureAt('product-gameboy-white-bg.jpg', 12), run: (i: RgbaImage) => removeBackground(i) },
  ]
  // Warm-up: sessions opened (and the first-run costs paid) before anything is watched.
  await enhanceImage(await fixtureAt('noface-cat-chelsea.png', 0.01))
  await removeBackground(await fixtureAt('product-gameboy-white-bg.jpg', 0.05))
  const results: Record<string, unknown>[] = []
  for (const c of cases) {
    for (let r = 0; r < runs; r++) {
      const row = { case: c.name, run: r + 1, ...(await watched(() => c.run(c.image))) }
      results.push(row)
      console.error(`  ${c.name} #${r + 1}: run ${row.runMs} ms (model ${row.modelMs}), loop delay max ${row.loopDelayMaxMs} ms, p99 ${row.loopDelayP99Ms} ms, longest 5-ms-timer gap ${row.longestTimerGapMs} ms`)
    }
  }
  return { threadsPerSession: threadsPerSession(), loadAverage: os.loadavg().map((v) => round(v, 2)), results }
}

runAsScript(import.meta.url, () => benchEventLoop(Number(process.argv[2] ?? 2)))
