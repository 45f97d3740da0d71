// Image enhancer: Real-ESRGAN at the scale the output cap allows, with an optional denoise strength.
import { z } from 'zod'
import { DENOISE, TOOLS } from '../../../catalog/tools'
import { parseFormatField, type ChosenFormat } from '../output-format.server'
import { baseName, parseField } from './options.server'
import { inspectRaster, runRaster } from './raster.server'
import type { ToolRunner } from '../../jobs/runner'

export interface ImageEnhancerOptions {
  /** 0..1; absent means the enhancer's default strength (the spec's screen sends none). */
  denoise?: number
  /** The result's file type; absent follows the upload (decision 173). */
  format?: ChosenFormat
}

export const DENOISE_MESSAGE = `denoise must be a number from ${DENOISE.min} to ${DENOISE.max}.`
const denoiseSchema = z
  .string({ error: DENOISE_MESSAGE })
  .trim()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, DENOISE_MESSAGE)
  .transform(Number)
  .refine((n) => n >= DENOISE.min && n <= DENOISE.max, DENOISE_MESSAGE)
  .optional()

export const imageEnhancerRunner: ToolRunner<ImageEnhancerOptions> = {
  slug: 'image-enhancer',
  optionFields: ['denoise', 'format'],
  async parseOptions(fields) {
    const denoise = parseField(denoiseSchema, fields.denoise)
    return { ...(denoise === undefined ? {} : { denoise }), ...parseFormatField(fields) }
  },
  inspect: (bytes) => inspectRaster('image-enhancer', bytes),
  run: (input) =>
    runRaster(
      'image-enhancer',
      input,
      // Steps: 0 'Loading the enhancer', 1 'Enhancing the entire frame', 2 'Encoding final image'.
      {
        decoded: { from: 0, to: 0.03, step: 0 },
        loading: { from: 0.03, to: 0.05, step: 0 },
        enhancing: { from: 0.05, to: 0.9, step: 1 },
        encoding: { from: 0.9, to: 1, step: 2 },
      },
      async (image, progress) => {
        const { enhanceImage } = await import('../image-enhancer.server')
        const out = await enhanceImage(image, { signal: input.signal, denoise: input.options.denoise, progress })
        return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, note: out.note }
      },
    ),
  model: async () => 'realesr-general-x4v3',
  outputName: (_options, originalName) => {
    const base = baseName(originalName)
    return base ? `${base}-enhanced.png` : TOOLS['image-enhancer'].downloadName
  },
}
