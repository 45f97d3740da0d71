// Face restorer: each face restored (GFPGAN when installed, else Fallback detail mode); no face found is refunded.
import { TOOLS } from '../catalog'
import { gfpganAvailable } from '../models/registry.server'
import { inspectRaster, runRaster, refundWhenNoFace } from './raster.server'
import type { ToolRunner } from './types'

export type FaceRestorerOptions = Record<string, never>

export const faceRestorerRunner: ToolRunner<FaceRestorerOptions> = {
  slug: 'face-restorer',
  optionFields: [],
  parseOptions: async () => ({}),
  inspect: (bytes) => inspectRaster('face-restorer', bytes),
  run: (input) =>
    runRaster(
      'face-restorer',
      input,
      // Steps: 0 'Scanning facial landmarks', 1 'Rebuilding texture detail', 3 'Polishing final portrait'.
      {
        decoded: { from: 0, to: 0.05, step: 0 },
        detected: { from: 0.05, to: 0.2, step: 1 },
        faces: { from: 0.2, to: 0.85, step: 1 },
        encoded: { from: 0.85, to: 1, step: 3 },
      },
      async (image, progress) => {
        const { restoreFaces } = await import('../face-restorer.server')
        const out = await restoreFaces(image, { signal: input.signal, progress })
        return {
          bytes: out.bytes,
          contentType: out.contentType,
          modelMs: out.modelMs,
          facesFound: out.facesFound,
          gfpganAvailable: out.gfpganAvailable,
        }
      },
    ),
  outputName: () => TOOLS['face-restorer'].downloadName,
  refundReason: refundWhenNoFace,
  answer: 'link',
  engine: () => ({ gfpganAvailable: gfpganAvailable() }),
}
