// The background remover against its model-only pipeline in interleaved pairs, for a steadier ratio
// than a handful of runs: each pair times predictMatte then removeBackground on the same 12 MP picture;
// the first three pairs are left out (the JIT, the image threads' start), then the median of the
// pairwise ratios is reported with each side's median time.
//   npx tsx bench/remover-pairs.ts [pairs]      (FIXTURE=<file in the fixtures> for another picture)
import { activeSegmenter, predictMatte, removeBackground } from '../app/features/tools/background-remover.server'
import { fixtureAt } from './support'

const WARM_PAIRS = 3
const pairs = Math.max(WARM_PAIRS + 1, Number(process.argv[2] ?? 15))
const image = await fixtureAt(process.env.FIXTURE ?? 'product-gameboy-white-bg.jpg', 12)
const segmenter = activeSegmenter()
const model: number[] = []
const removal: number[] = []
for (let i = 0; i < pairs; i++) {
  let started = performance.now()
  await predictMatte(image, segmenter)
  model.push(performance.now() - started)
  started = performance.now()
  await removeBackground(image)
  removal.push(performance.now() - started)
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const ratios = removal.map((ms, i) => ms / model[i]).slice(WARM_PAIRS)
console.log(
  `${image.width}×${image.height}: removal ${Math.round(median(removal.slice(WARM_PAIRS)))} ms, model-only pipeline ${Math.round(median(model.slice(WARM_PAIRS)))} ms,`,
  `median of ${ratios.length} pairwise ratios ${median(ratios).toFixed(2)}× (each: ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
)
