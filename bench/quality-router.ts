// The router case of the matte-quality benchmark (issue 32): the router fixture, whose alpha is exact,
// sent composited on white as a product photo is, through the real remover at each refinement level.
// Its right-hand antenna is a thin part U²-Netp barely sees; the case says how much of it the cutout
// keeps, with the whole cutout's alpha error and the colour error of its partly transparent pixels.
import path from 'node:path'
import sharp from 'sharp'
import type { MatteRefinementLevel } from '../app/features/tools/models/matte.server'
import type { Segmenter } from '../app/features/tools/models/segmenters.server'
import type { RgbaImage } from '../app/features/tools/image'
import { alphaMAE, colourBleed, MASK_THRESHOLD } from './quality-metrics'
import { PHOTOS } from './support'

const ROUTER = 'product-router-alpha-groundtruth.png'

export interface RouterFigures {
  refinement: MatteRefinementLevel
  /** Share of the right antenna's true pixels (alpha ≥ 0.5) the cutout keeps at alpha ≥ 0.5. */
  antennaKept: number
  mae: number
  /** colourBleed as 0..1: the colour error where the truth is partly transparent and the cutout keeps the pixel. */
  edgeColourError: number
}

/** The router flattened on white, its true alpha and colours, and its right antenna's true pixels. */
export async function routerOnWhite() {
  const file = path.join(PHOTOS, ROUTER)
  const { data: rgba, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const { width, height } = info
  const image = { data: await sharp(file).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer(), width, height }
  const truthAlpha = new Uint8Array(width * height)
  const truthRgb = new Uint8Array(width * height * 3)
  for (let p = 0; p < truthAlpha.length; p++) {
    truthAlpha[p] = rgba[p * 4 + 3]
    for (let k = 0; k < 3; k++) truthRgb[p * 3 + k] = rgba[p * 4 + k]
  }
  // The right antenna stands alone above the body's top (which is below mid-height there), right of 88 % of the width.
  const antenna: number[] = []
  for (let y = 0; y < height / 2; y++) {
    for (let x = Math.ceil(width * 0.88); x < width; x++) if (truthAlpha[y * width + x] >= MASK_THRESHOLD) antenna.push(y * width + x)
  }
  return { image, truthAlpha, truthRgb, antenna }
}

/** The router case at each level; `cutoutOf` is quality.ts's (handed in, as to routerHalo, so neither module imports the other). */
export async function routerFigures(
  levels: readonly MatteRefinementLevel[],
  cutoutOf: (image: RgbaImage, refinement: MatteRefinementLevel, segmenter?: Segmenter) => Promise<{ alpha: Uint8Array; rgb: Uint8Array }>,
  segmenter?: Segmenter,
): Promise<RouterFigures[]> {
  const router = await routerOnWhite()
  const figures: RouterFigures[] = []
  for (const refinement of levels) {
    const cutout = await cutoutOf(router.image, refinement, segmenter)
    const kept = router.antenna.filter((p) => cutout.alpha[p] >= MASK_THRESHOLD).length
    figures.push({
      refinement,
      antennaKept: kept / router.antenna.length,
      mae: alphaMAE(router.truthAlpha, cutout.alpha),
      edgeColourError: colourBleed(router.truthAlpha, router.truthRgb, cutout.alpha, cutout.rgb) / 255,
    })
  }
  return figures
}
