// The ceiling of refining a model's matte (issue 20, item 2; docs/decisions/154): on the quality benchmark's
// scenes, the model's own matte cleaned up by an oracle that reads the ground truth. A refinement works on the
// model's matte: it keeps or drops its parts, fills or keeps its holes and redraws the edge near its outline.
// The oracle makes each of those choices exactly as the truth says, so no refinement of that matte can do better;
// what it leaves is the model's (a part that holds the object and the backdrop's subject as one, an object the
// model did not see).
//   npx tsx bench/quality-ceiling.ts [--seed N] [--count M]      (defaults: seed 1, 200 scenes; about 5 minutes)
import os from 'node:os'
import { activeSegmenter, defaultRefinementFor, SPECK_SHARE } from '../app/features/tools/background-remover.server'
import { labelRegions } from '../app/features/tools/models/matte.server'
import type { Regions } from '../app/features/tools/models/regions'
import { argument, cutoutOf } from './quality'
import { alphaMAE, alphaSAD, edgeBand, MASK_THRESHOLD } from './quality-metrics'
import { generateScenes } from './quality-scenes'
import { runAsScript } from './support'

export interface CeilingRules {
  /**
   * Keep one part when the truth would drop them all. A remover that answers an empty cutout for a picture
   * has not refined anything: a real rule keeps a part it has (the focus rule never drops a lone part), and
   * not a speck (the speck rule drops parts under a tenth of the largest one's area).
   */
  neverEmpty: boolean
  /** Within this many px of the chosen outline the alpha is the truth's (a perfect edge refinement); 0 for none. */
  edgeReach: number
}

/**
 * The model's matte (0..255, at the picture's size) with its parts and holes chosen by the truth and the truth
 * copied within `edgeReach` px of the outline. A part (8-connected, alpha ≥ 128) is kept where keeping it costs
 * less alpha error than dropping it; a hole (a 4-connected clear region that does not reach the frame) is filled
 * where that costs less.
 */
export function ceilingMatte(model: Uint8Array, truth: Uint8Array, width: number, height: number, rules: CeilingRules): Uint8Array {
  const mask = new Uint8Array(width * height)
  for (let p = 0; p < mask.length; p++) mask[p] = model[p] >= MASK_THRESHOLD ? 255 : 0

  // Per region: the error of setting it (sum of 255 − truth) minus the error of clearing it (sum of truth).
  const costOfSetting = (regions: Regions) => {
    const cost = new Float64Array(regions.count + 1)
    const { offsets, lengths, labels } = regions.runs
    for (let r = 0; r < labels.length; r++) for (let p = offsets[r], end = p + lengths[r]; p < end; p++) cost[labels[r]] += 255 - 2 * truth[p]
    return cost
  }

  const parts = labelRegions(mask, 1, width, height, true, 255)
  const partCost = costOfSetting(parts)
  const keep = new Uint8Array(parts.count + 1)
  for (let label = 1; label <= parts.count; label++) keep[label] = partCost[label] < 0 ? 1 : 0
  if (rules.neverEmpty && parts.count > 0 && !keep.includes(1)) {
    // The part that costs least of those the speck rule would keep.
    const largest = Math.max(...parts.areas.subarray(1))
    let best = 0
    for (let label = 1; label <= parts.count; label++) {
      if (parts.areas[label] < largest * SPECK_SHARE) continue
      if (best === 0 || partCost[label] < partCost[best]) best = label
    }
    keep[best] = 1
  }
  for (let r = 0; r < parts.runs.labels.length; r++) {
    if (!keep[parts.runs.labels[r]]) mask.fill(0, parts.runs.offsets[r], parts.runs.offsets[r] + parts.runs.lengths[r])
  }

  const gaps = labelRegions(mask, 0, width, height, false, 255)
  const gapCost = costOfSetting(gaps)
  for (let r = 0; r < gaps.runs.labels.length; r++) {
    const label = gaps.runs.labels[r]
    if (!gaps.touchesBorder[label] && gapCost[label] < 0) mask.fill(255, gaps.runs.offsets[r], gaps.runs.offsets[r] + gaps.runs.lengths[r])
  }

  if (rules.edgeReach <= 0) return mask
  // The metrics' own edge band, drawn from the chosen mask: both sides of every change, and what lies within reach.
  const band = edgeBand(mask, width, height, rules.edgeReach)
  for (let p = 0; p < mask.length; p++) if (band[p]) mask[p] = truth[p]
  return mask
}

/**
 * The issue's "today": the remover's output when issue 20 was filed (the classic refinement before decision 128),
 * seed 1, 200 scenes, as decision 128 measured it. Its goals are 25 % lower MAE and SAD.
 */
export const ISSUE_BASELINE = { mae: 0.09538, sad: 80.07 }
const GOAL_SHARE = 0.75

/** Edge reaches of the perfect edge, in multiples of the model's enlargement (its edge is about that many px off). */
const EDGE_REACHES = [0, 1, 2, 4]

export async function benchQualityCeiling(): Promise<object> {
  const seed = argument('seed', 1)
  const count = argument('count', 200)
  const segmenter = activeSegmenter()
  const rows = new Map<string, { mae: number; sad: number }>()
  const add = (name: string, truth: Uint8Array, alpha: Uint8Array) => {
    const row = rows.get(name) ?? { mae: 0, sad: 0 }
    row.mae += alphaMAE(truth, alpha)
    row.sad += alphaSAD(truth, alpha)
    rows.set(name, row)
  }
  let scenes = 0
  for await (const scene of generateScenes(seed, count)) {
    const { width, height } = scene.image
    const truth = scene.truthAlpha
    const model = await cutoutOf(scene.image, 'model', segmenter)
    const level = defaultRefinementFor(width, height)
    add('the model’s matte, enlarged (refinement model)', truth, model.alpha)
    add(`the remover’s default (refinement ${level})`, truth, (await cutoutOf(scene.image, level, segmenter)).alpha)
    add('ceiling: parts and holes by the truth, may drop every part', truth, ceilingMatte(model.alpha, truth, width, height, { neverEmpty: false, edgeReach: 0 }))
    // As the remover measures it: how many times the model's input was enlarged to the picture.
    const input = segmenter.inputSize(width, height)
    const upscale = Math.max(width / input.width, height / input.height)
    for (const reach of EDGE_REACHES) {
      const edgeReach = Math.round(reach * upscale)
      const name = `ceiling: parts and holes by the truth, never empty${reach ? `, truth within ${reach}× the enlargement` : ''}`
      add(name, truth, ceilingMatte(model.alpha, truth, width, height, { neverEmpty: true, edgeReach }))
    }
    scenes++
    if (scenes % 20 === 0) console.error(`  ${scenes}/${count} scenes`)
  }
  const goal = { mae: ISSUE_BASELINE.mae * GOAL_SHARE, sad: ISSUE_BASELINE.sad * GOAL_SHARE }
  const table = [...rows].map(([matte, sums]) => ({
    matte,
    mae: Number((sums.mae / scenes).toFixed(5)),
    sad: Number((sums.sad / scenes).toFixed(2)),
    maeVsIssueBaseline: `${(((sums.mae / scenes) / ISSUE_BASELINE.mae - 1) * 100).toFixed(1)} %`,
    sadVsIssueBaseline: `${(((sums.sad / scenes) / ISSUE_BASELINE.sad - 1) * 100).toFixed(1)} %`,
  }))
  console.error(`\n  ${segmenter.id}, ${scenes} scenes (seed ${seed}); load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`)
  console.table(table)
  console.error(`  issue 20's goals: MAE ≤ ${goal.mae.toFixed(5)}, SAD ≤ ${goal.sad.toFixed(2)} (25 % under ${ISSUE_BASELINE.mae} and ${ISSUE_BASELINE.sad})`)
  return { model: segmenter.id, seed, scenes, goal, rows: table }
}

runAsScript(import.meta.url, benchQualityCeiling)
