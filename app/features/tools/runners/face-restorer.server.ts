// Face restorer: the portrait at 2×, each face restored (GFPGAN when installed, else Fallback detail
// mode); the note names the engine that ran; no face found is refunded.
import { TOOLS } from '../../../catalog/tools'
import { GFPGAN_MODEL, gfpganAvailable } from '../models/registry.server'
import { parseFormatField, type ChosenFormat } from '../output-format.server'
import { inspectRaster, runRaster, refundWhenNoFace } from './raster.server'
import type { ToolRunner } from '../../jobs/runner'

export interface FaceRestorerOptions {
  /** The result's file type; absent follows the upload (decision 173). */
  format?: ChosenFormat
}

export const faceRestorerRunner: ToolRunner<FaceRestorerOptions> = {
  slug: 'face-restorer',
  optionFields: ['format'],
  parseOptions: async (fields) => parseFormatField(fields),
  inspect: (bytes) => inspectRaster('face-restorer', bytes),
  run: (input) =>
    runRaster(
      'face-restorer',
      input,
      // Steps: 0 'Scanning facial landmarks', 1 'Rebuilding texture detail', 2 'Recovering light + contrast',
      // 3 'Polishing final portrait'. The background's share is the larger: it is the whole frame.
      {
        decoded: { from: 0, to: 0.03, step: 0 },
        detected: { from: 0.03, to: 0.1, step: 1 },
        background: { from: 0.1, to: 0.6, step: 1 },
        faces: { from: 0.6, to: 0.9, step: 2 },
        encoded: { from: 0.9, to: 1, step: 3 },
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
          note: out.note,
        }
      },
    ),
  outputName: () => TOOLS['face-restorer'].downloadName,
  refundReason: refundWhenNoFace,
  answer: 'link',
  engine: () => ({ gfpganAvailable: gfpganAvailable() }),
  // Without GFPGAN the Fallback detail mode restores with the enhancer's Real-ESRGAN.
  model: async () => (gfpganAvailable() ? GFPGAN_MODEL : 'realesr-general-x4v3'),
}
