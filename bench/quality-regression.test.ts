// The matte-quality regression check: ten fixed scenes made from tests/fixtures alone (the router
// with its ground-truth alpha over defocused photos, bench/quality-scenes.ts), cut out by the real
// model with the remover's default refinement, scored against the truth. The bounds are the values
// measured when they were set (decisions 090, 128, 153) with a margin: a change that makes the cutouts worse
// fails here; one that makes them better should tighten them.
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_REFINEMENT } from '../app/features/tools/background-remover.server'
import { requireModels } from '../app/features/tools/models/fixtures.test-support'
import { cutoutOf, scoreScene } from './quality'
import type { MatteScores } from './quality-metrics'
import { fixtureScenes } from './quality-scenes'

// Ten real model runs on a shared 2-core machine.
vi.setConfig({ testTimeout: 600_000 })

beforeAll(() => requireModels('u2netp'))

describe('matte quality on the ten fixture scenes (U²-Netp)', () => {
  it('stays within the measured bounds', async () => {
    const scenes = await fixtureScenes()
    expect(scenes).toHaveLength(10)
    const scores: MatteScores[] = []
    for (const scene of scenes) scores.push(scoreScene(scene, await cutoutOf(scene.image, DEFAULT_REFINEMENT)))
    const mean = (metric: keyof MatteScores) => scores.reduce((sum, s) => sum + s[metric], 0) / scores.length
    // Measured 2026-11-26 with the sampled refinement and the focus rule (decision 153): IoU 0.702, MAE
    // 0.0875, SAD 42.60, edge-band MAE 0.180, gradient 0.173, boundary F 0.700, colour bleed 42.3. Before
    // the focus rule (decision 128) they were 0.661, 0.0990, 48.42, 0.180, 0.187, 0.679, 42.5: its IoU,
    // MAE and SAD fail here; the classic refinement's edge-band MAE (0.202) fails too.
    // Measured 2026-11-27 once every confident part is kept (decision 159): IoU 0.705, MAE 0.0928, SAD 45.42,
    // edge-band MAE 0.174, colour bleed 41.5. Keeping parts the focus rule dropped costs MAE and SAD (the
    // bounds of 153, 0.092 and 44.7, failed): those two bounds are loosened to the new figures, the rest hold.
    // Measured 2026-11-27 once the sampled step keeps what the matte holds at 0.5 at the least (decision 168):
    // IoU 0.699, MAE 0.0878, SAD 42.75, edge-band MAE 0.178, gradient 0.179, boundary F 0.712, colour bleed 42.1,
    // thin-part recall 0.759 and truth-part recall 0.868 (without the rule 0.650, which fails here, and 0.860). Without the
    // rule MAE and SAD measure 0.0874 and 42.63 here (not 159's 0.0928 and 45.42); with it they are tightened to ~5 %.
    // Margins: about 5 % of each, more for the noisier gradient.
    expect(mean('iou')).toBeGreaterThanOrEqual(0.67)
    expect(mean('mae')).toBeLessThanOrEqual(0.092)
    expect(mean('sad')).toBeLessThanOrEqual(44.9)
    expect(mean('thinPartRecall')).toBeGreaterThanOrEqual(0.72)
    expect(mean('truthPartRecall')).toBeGreaterThanOrEqual(0.82)
    expect(mean('edgeMae')).toBeLessThanOrEqual(0.19)
    expect(mean('gradient')).toBeLessThanOrEqual(0.2)
    expect(mean('boundaryF')).toBeGreaterThanOrEqual(0.665)
    expect(mean('colourBleed')).toBeLessThanOrEqual(44.4)
    // The scenes the model gets right must stay right: the best cutout's IoU was 0.976 (classic 0.965).
    expect(Math.max(...scores.map((s) => s.iou))).toBeGreaterThanOrEqual(0.95)
  })
})
