// Background remover: a transparent cutout, or the cutout flattened on a colour (a preset or #hex).
import { z } from 'zod'
import { BACKGROUND_PRESETS, cutoutFilename, HEX_COLOUR, TOOLS } from '../catalog'
import { MODEL_CHOICES, type ModelChoice } from '../models/model-choices'
import { parseField } from './options.server'
import { inspectRaster, runRaster } from './raster.server'
import type { ToolRunner } from './types'

export interface BackgroundRemoverOptions {
  /** A preset or a #rgb/#rrggbb colour to flatten on; absent for a transparent cutout. */
  background?: string
  /** Which background model (models/segmenters.server.ts); absent means auto. */
  model?: ModelChoice
}

export const MODEL_CHOICE_MESSAGE = `model must be one of ${MODEL_CHOICES.join(', ')}.`
const modelSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || (MODEL_CHOICES as readonly string[]).includes(v), MODEL_CHOICE_MESSAGE)
  .transform((v) => (v === '' || v === 'auto' ? undefined : (v as ModelChoice)))
  .optional()

const BACKGROUND_MESSAGE = `background must be a colour as #rgb or #rrggbb, or one of ${BACKGROUND_PRESETS.filter((p) => !p.startsWith('#')).join(', ')}.`
const backgroundSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || v === 'transparent' || HEX_COLOUR.test(v) || (BACKGROUND_PRESETS as readonly string[]).includes(v), BACKGROUND_MESSAGE)
  .transform((v) => (v === '' || v === 'transparent' ? undefined : v))
  .optional()

export const backgroundRemoverRunner: ToolRunner<BackgroundRemoverOptions> = {
  slug: 'background-remover',
  // A form without JavaScript sends background=custom and the colour typed in background_custom.
  optionFields: ['background', 'background_custom', 'model'],
  async parseOptions(fields) {
    const chosen = fields.background?.trim() === 'custom' ? fields.background_custom : fields.background
    const background = parseField(backgroundSchema, chosen)
    const model = parseField(modelSchema, fields.model)
    return { ...(background ? { background } : {}), ...(model ? { model } : {}) }
  },
  inspect: (bytes) => inspectRaster('background-remover', bytes),
  run: (input) =>
    runRaster(
      'background-remover',
      input,
      {
        decoded: { from: 0, to: 0.05, step: 1 },
        matte: { from: 0.05, to: 0.6, step: 1 },
        refined: { from: 0.6, to: 0.85, step: 1 },
        encoded: { from: 0.85, to: 1, step: 1 },
      },
      async (image, progress) => {
        // Loaded here, not at the top: onnxruntime stays out of processes that never run a model.
        const { removeBackground } = await import('../background-remover.server')
        const { background, model } = input.options
        const out = await removeBackground(image, { background, model, signal: input.signal, progress })
        return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, model: out.model, note: out.note }
      },
    ),
  outputName: (options) => (options.background ? cutoutFilename(options.background) : TOOLS['background-remover'].downloadName),
}
