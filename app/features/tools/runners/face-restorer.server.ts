// Face restorer: each face restored (GFPGAN when installed, else Fallback detail mode); no face found is refunded.
import { TOOLS } from '../catalog'
import { gfpganAvailable } from '../models/registry.server'
import { runProgress } from './progress'
import { decodeForRun, inspectRaster, refundWhenNoFace } from './raster.server'
import type { ToolRunner } from './types'

export type FaceRestorerOptions = Record<string, never>

export const faceRestorerRunner: ToolRunner<FaceRestorerOptions> = {
  slug: 'face-restorer',
  optionFields: [],
  parseOptions: async () => ({}),
  inspect: (bytes) => inspectRaster('face-restorer', bytes),
  async run(input) {
    // Steps: 0 'Scanning facial landmarks', 1 'Rebuilding texture detail', 3 'Polishing final portrait'.
    const progress = runProgress('face-restorer', input.progress, {
      decoded: { from: 0, to: 0.05, step: 0 },
      detected: { from: 0.05, to: 0.2, step: 1 },
      faces: { from: 0.2, to: 0.85, step: 1 },
      encoded: { from: 0.85, to: 1, step: 3 },
    })
    const image = await decodeForRun(input)
    progress.phase('decoded', 1)
    const { restoreFaces } = await import('../face-restorer.server')
    const out = await restoreFaces(image, { signal: input.signal, progress: progress.phase })
    progress.done()
    return {
      bytes: out.bytes,
      contentType: out.contentType,
      modelMs: out.modelMs,
      facesFound: out.facesFound,
      gfpganAvailable: out.gfpganAvailable,
    }
  },
  outputName: () => TOOLS['face-restorer'].downloadName,
  refundReason: refundWhenNoFace,
  answer: 'link',
  engine: () => ({ gfpganAvailable: gfpganAvailable() }),
}
