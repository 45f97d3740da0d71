// Matte-quality benchmark: the background remover on scenes with exact ground truth
// (bench/quality-scenes.ts), per model and per refinement setting, quality and time side by side.
//   npm run bench -- quality [--seed N] [--count M]      (defaults: seed 1, 200 scenes)
//   npx tsx bench/quality.ts [--seed N] [--count M]
//   npm run bench -- quality --model-file PATH [--model-id ID]: a model file beside U²-Netp (bench/quality-model-file.ts)
//   --levels model,classic,sampled: only these refinement levels (a slow model's run stays short)
//   npm run bench -- quality --from-feedback DIR: the reported results exported from /console/feedback and
//     unzipped into DIR, as scenes with the user's corrected matte as truth (bench/quality-feedback.ts)
// Time is per megapixel of the scene, and as a ratio against the model-only pipeline (predictMatte)
// and against the classic refinement, each timed on the same scene in the same loop: on a loaded
// machine the ratios are what compare; the load average is printed with them.
import os from 'node:os'
import sharp from 'sharp'
import { predictMatte, removeBackground } from '../app/features/tools/background-remover.server'
import type { RgbaImage } from '../app/features/tools/image'
import { MATTE_REFINEMENTS, type MatteRefinementLevel } from '../app/features/tools/models/matte.server'
import { installedSegmenters, type Segmenter } from '../app/features/tools/models/segmenters.server'
import { scoreCutout, type MatteScores } from './quality-metrics'
import { printUnscored, readFeedbackExport, type UnscoredCase } from './quality-feedback'
import { routerHalo, useModelFile } from './quality-model-file'
import { routerFigures, type RouterFigures } from './quality-router'
import { generateScenes, type Scene } from './quality-scenes'
import { runAsScript } from './support'


export interface CutoutUnderTest {
  alpha: Uint8Array
  rgb: Uint8Array
  ms: number
}

/** The remover's cutout of `image` at a refinement level, decoded back to alpha and colour, and its time. */
export async function cutoutOf(image: RgbaImage, refinement: MatteRefinementLevel, segmenter?: Segmenter): Promise<CutoutUnderTest> {
  const started = performance.now()
  const output = await removeBackground(image, { refinement, segmenter })
  const ms = performance.now() - started
  const { data } = await sharp(output.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const pixels = image.width * image.height
  const alpha = new Uint8Array(pixels)
  const rgb = new Uint8Array(pixels * 3)
  for (let p = 0; p < pixels; p++) {
    alpha[p] = data[p * 4 + 3]
    rgb[p * 3] = data[p * 4]
    rgb[p * 3 + 1] = data[p * 4 + 1]
    rgb[p * 3 + 2] = data[p * 4 + 2]
  }
  return { alpha, rgb, ms }
}

/** Every metric of a cutout of the scene; `modelAlpha`, the model's own matte (the `model` level's), for the model-part recall. */
export function scoreScene(scene: Scene, cutout: CutoutUnderTest, modelAlpha?: Uint8Array): MatteScores {
  return scoreCutout({ alpha: scene.truthAlpha, rgb: scene.truthRgb }, cutout, scene.image.width, scene.image.height, modelAlpha)
}

const RECALLS = ['modelPartRecall', 'truthPartRecall', 'thinPartRecall'] as const
const METRICS: (keyof MatteScores)[] = ['iou', 'mae', 'sad', 'edgeMae', 'edgeSad', 'gradient', 'boundaryF', 'colourBleed', ...RECALLS]

interface Totals {
  sums: Record<keyof MatteScores, number>
  counts: Record<keyof MatteScores, number>
  ms: number
  megapixels: number
  ratioToModel: number[]
  ratioToClassic: number[]
}

const emptyTotals = (): Totals => ({
  sums: Object.fromEntries(METRICS.map((m) => [m, 0])) as Totals['sums'],
  counts: Object.fromEntries(METRICS.map((m) => [m, 0])) as Totals['counts'],
  ms: 0,
  megapixels: 0,
  ratioToModel: [],
  ratioToClassic: [],
})

const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] : Number.NaN)
const round = (v: number, digits: number) => Number(v.toFixed(digits))

/** A whole-number setting of the command line (`--name N`), or the fallback. */
export function argument(name: string, fallback: number, argv: readonly string[] = process.argv): number {
  const at = argv.indexOf(`--${name}`)
  const value = at >= 0 ? Number(argv[at + 1]) : fallback
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`)
  return value
}

/** A text setting of the command line (`--name value`, such as --model-file's path), or undefined when absent. */
export function textArgument(name: string, argv: readonly string[] = process.argv): string | undefined {
  const at = argv.indexOf(`--${name}`)
  if (at < 0) return undefined
  const value = argv[at + 1]
  if (value === undefined || value === '' || value.startsWith('--')) throw new Error(`--${name} takes a value`)
  return value
}

/** The refinement levels to measure (`--levels model,classic,sampled`; every level by default); classic is the times' baseline. */
export function levelsArgument(argv: readonly string[] = process.argv): readonly MatteRefinementLevel[] {
  const text = textArgument('levels', argv)
  if (text === undefined) return MATTE_REFINEMENTS
  const levels = text.split(',')
  const known = (level: string): level is MatteRefinementLevel => (MATTE_REFINEMENTS as readonly string[]).includes(level)
  if (!levels.every(known) || !levels.includes('classic')) {
    throw new Error(`--levels takes refinement levels separated by commas, classic among them (the times' baseline): ${MATTE_REFINEMENTS.join(', ')}`)
  }
  return levels
}

/** Where the scenes come from: generated (--seed, --count), or a feedback export (--from-feedback DIR). */
async function sceneSource(): Promise<{ seed: number; count: number; scenes: () => AsyncIterable<Scene>; warmUp: () => AsyncIterable<Scene>; feedback: { dir: string; unscored: UnscoredCase[] } | null }> {
  const seed = argument('seed', 1)
  const dir = textArgument('from-feedback')
  if (dir === undefined) {
    const count = argument('count', 200)
    return { seed, count, scenes: () => generateScenes(seed, count), warmUp: () => generateScenes(seed + 1_000_000, 2), feedback: null }
  }
  const read = await readFeedbackExport(dir)
  const listed = async function* (scenes: Scene[]) {
    yield* scenes
  }
  return { seed, count: read.scenes.length, scenes: () => listed(read.scenes), warmUp: () => listed(read.scenes.slice(0, 1)), feedback: { dir, unscored: read.unscored } }
}

export async function benchQuality(): Promise<object> {
  const source = await sceneSource()
  const { seed, count } = source
  const levels = levelsArgument()
  const modelFile = textArgument('model-file')
  const underTest = modelFile ? await useModelFile(modelFile, textArgument('model-id')) : null
  const loadAtStart = os.loadavg().map((v) => round(v, 2))
  const results = []
  const routers: { model: string; figures: RouterFigures[] }[] = []
  for (const segmenter of underTest?.segmenters ?? installedSegmenters()) {
    const totals = new Map<MatteRefinementLevel, Totals>(levels.map((level) => [level, emptyTotals()]))
    let scenes = 0
    // Warm-up outside the measurements: the session, the image threads, the JIT.
    for await (const scene of source.warmUp()) for (const level of levels) await cutoutOf(scene.image, level, segmenter)
    for await (const scene of source.scenes()) {
      const megapixels = (scene.image.width * scene.image.height) / 1e6
      const started = performance.now()
      await predictMatte(scene.image, segmenter)
      const modelMs = performance.now() - started
      const times = new Map<MatteRefinementLevel, number>()
      // The `model` level comes first: its alpha is the model's own matte, enlarged.
      let modelAlpha: Uint8Array | undefined
      for (const level of levels) {
        const cutout = await cutoutOf(scene.image, level, segmenter)
        if (level === 'model') modelAlpha = cutout.alpha
        const scores = scoreScene(scene, cutout, modelAlpha)
        const t = totals.get(level)!
        for (const metric of METRICS) {
          if (Number.isNaN(scores[metric])) continue
          t.sums[metric] += scores[metric]
          t.counts[metric]++
        }
        t.ms += cutout.ms
        t.megapixels += megapixels
        t.ratioToModel.push(cutout.ms / modelMs)
        times.set(level, cutout.ms)
      }
      for (const level of levels) totals.get(level)!.ratioToClassic.push(times.get(level)! / times.get('classic')!)
      scenes++
      if (scenes % 20 === 0) console.error(`  ${segmenter.id}: ${scenes}/${count} scenes`)
    }
    console.error(`\n  ${segmenter.id}, ${scenes} scenes (${source.feedback ? `reported results from ${source.feedback.dir}` : `seed ${seed}`}); load average at start ${loadAtStart.join(' ')}, now ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`)
    console.error('  (edge MAE and SAD: within the boundary tolerance of the true edge, as matting benchmarks score their trimap\'s unknown region)')
    console.error('  refinement   IoU     MAE      SAD      edgeMAE  edgeSAD  grad    bF      bleed   ms/MP   ×model  ×classic')
    for (const level of levels) {
      const t = totals.get(level)!
      const mean = (m: keyof MatteScores) => t.sums[m] / Math.max(1, t.counts[m])
      const row = {
        model: segmenter.id,
        refinement: level,
        scenes,
        iou: round(mean('iou'), 4),
        mae: round(mean('mae'), 5),
        sad: round(mean('sad'), 3),
        edgeMae: round(mean('edgeMae'), 5),
        edgeSad: round(mean('edgeSad'), 3),
        gradient: round(mean('gradient'), 3),
        boundaryF: round(mean('boundaryF'), 4),
        colourBleed: round(mean('colourBleed'), 2),
        colourBleedScenes: t.counts.colourBleed,
        ...recallsOf(t),
        msPerMegapixel: round(t.ms / t.megapixels, 1),
        medianRatioToModelOnly: round(median(t.ratioToModel), 3),
        medianRatioToClassic: round(median(t.ratioToClassic), 3),
      }
      results.push(row)
      console.error(
        `  ${level.padEnd(11)} ${row.iou.toFixed(4)}  ${row.mae.toFixed(5)}  ${row.sad.toFixed(3).padStart(7)}  ${row.edgeMae.toFixed(5)}  ${row.edgeSad.toFixed(3).padStart(7)}  ${row.gradient.toFixed(2).padStart(6)}  ${row.boundaryF.toFixed(4)}  ${row.colourBleed.toFixed(2).padStart(6)}  ${row.msPerMegapixel.toFixed(0).padStart(5)}  ${row.medianRatioToModelOnly.toFixed(2).padStart(6)}  ${row.medianRatioToClassic.toFixed(2).padStart(7)}`,
      )
    }
    printRecalls(results.filter((row) => row.model === segmenter.id))
    const router = await routerFigures(levels, cutoutOf, segmenter)
    printRouter(router)
    routers.push({ model: segmenter.id, figures: router })
  }
  // The model file's own section: the router on white in two framings, to show a halo (decision 160).
  const halo = underTest ? await routerHalo(underTest.segmenters, levels, cutoutOf) : undefined
  if (source.feedback) printUnscored(source.feedback.unscored)
  await underTest?.restore()
  return {
    seed,
    count,
    cpus: os.availableParallelism(),
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: os.loadavg().map((v) => round(v, 2)),
    results,
    router: routers,
    ...(underTest ? { modelFile, routerHalo: halo } : {}),
    ...(source.feedback ? { fromFeedback: source.feedback.dir, unscored: source.feedback.unscored } : {}),
  }
}

/** The three part recalls of a level (issue 32), each a mean over the scenes that have such parts, with how many. */
function recallsOf(t: Totals) {
  return Object.fromEntries(
    RECALLS.flatMap((m) => [
      [m, round(t.sums[m] / Math.max(1, t.counts[m]), 4)],
      [`${m}Scenes`, t.counts[m]],
    ]),
  ) as Record<(typeof RECALLS)[number] | `${(typeof RECALLS)[number]}Scenes`, number>
}

function printRecalls(rows: ({ refinement: string } & ReturnType<typeof recallsOf>)[]) {
  console.error("\n  part recalls: the share of each part the cutout keeps at alpha >= 0.5 (the `model` row is the model's own matte thresholded at 0.5)")
  console.error('  refinement   model parts  true parts  thin parts')
  for (const row of rows) {
    console.error(
      `  ${row.refinement.padEnd(11)}  ${row.modelPartRecall.toFixed(4).padStart(10)}  ${row.truthPartRecall.toFixed(4).padStart(10)}  ${row.thinPartRecall.toFixed(4).padStart(10)}`,
    )
  }
  const first = rows[0]
  if (first) console.error(`  (scenes with model parts ${first.modelPartRecallScenes}, true parts ${first.truthPartRecallScenes}, thin parts ${first.thinPartRecallScenes})`)
}

function printRouter(figures: RouterFigures[]) {
  console.error('\n  the router on white (its exact alpha): right antenna kept at alpha >= 0.5, MAE, edge colour error (0..1)')
  for (const f of figures) {
    console.error(`  ${f.refinement.padEnd(11)}  antenna ${f.antennaKept.toFixed(3)}  MAE ${f.mae.toFixed(4)}  edge colour ${f.edgeColourError.toFixed(3)}`)
  }
}

runAsScript(import.meta.url, benchQuality)
