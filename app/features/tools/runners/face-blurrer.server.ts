// Face blurrer: every face found blurred at the chosen radius; no face found is refunded.
import { z } from 'zod'
import { BLUR, TOOLS } from '../../../catalog/tools'
import { parseFormatField, type ChosenFormat } from '../output-format.server'
import { parseField } from './options.server'
import { inspectRaster, runRaster, refundWhenNoFace } from './raster.server'
import type { ToolRunner } from '../../jobs/runner'
import { correctionHooks } from '../correction-hooks.server'

export interface FaceBlurrerOptions {
  /** The blur radius in px (spec §9: 12..60 in steps of 2). */
  blur: number
  /** The result's file type; absent follows the upload (decision 173). */
  format?: ChosenFormat
}

const BLUR_MESSAGE = `blur must be a number from ${BLUR.min} to ${BLUR.max} in steps of ${BLUR.step}.`
const blurSchema = z
  .string({ error: BLUR_MESSAGE })
  .trim()
  .regex(/^\d+(\.0+)?$/, BLUR_MESSAGE)
  .transform(Number)
  .refine((n) => n >= BLUR.min && n <= BLUR.max && (n - BLUR.min) % BLUR.step === 0, BLUR_MESSAGE)

export const faceBlurrerRunner: ToolRunner<FaceBlurrerOptions> = {
  slug: 'face-blurrer',
  optionFields: ['blur', 'format'],
  parseOptions: async (fields) => ({ blur: parseField(blurSchema, fields.blur), ...parseFormatField(fields) }),
  inspect: (bytes) => inspectRaster('face-blurrer', bytes),
  run: (input) =>
    runRaster(
      'face-blurrer',
      input,
      // Steps: 1 'Detecting faces', 2 'Rendering blur shields'.
      {
        decoded: { from: 0, to: 0.05, step: 1 },
        detected: { from: 0.05, to: 0.4, step: 1 },
        faces: { from: 0.4, to: 0.85, step: 2 },
        encoded: { from: 0.85, to: 1, step: 2 },
      },
      async (image, progress) => {
        const { blurFaces } = await import('../face-blurrer.server')
        const { keepFaces } = correctionHooks()
        const out = await blurFaces(image, { blur: input.options.blur, signal: input.signal, progress })
        const faces = out.faces.map(({ x, y, width, height, score }) => ({ x, y, width, height, score }))
        const edit = keepFaces({ upload: input.bytes, image, blur: input.options.blur, format: input.options.format ?? null, faces })
        return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, facesFound: out.facesFound, edit }
      },
    ),
  model: async () => 'yunet',
  outputName: () => TOOLS['face-blurrer'].downloadName,
  refundReason: refundWhenNoFace,
}
