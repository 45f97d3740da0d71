// Background remover: a transparent cutout, or the cutout flattened on a colour (a preset or #hex).
import { z } from 'zod'
import { BACKGROUND_PRESETS, cutoutFilename, HEX_COLOUR, TOOLS } from '../catalog'
import { parseField } from './options.server'
import { inspectRaster, runRaster } from './raster.server'
import type { ToolRunner } from './types'

export interface BackgroundRemoverOptions {
  /** A preset or a #rgb/#rrggbb colour to flatten on; absent for a transparent cutout. */
  background?: string
}

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
  optionFields: ['background', 'background_custom'],
  async parseOptions(fields) {
    const chosen = fields.background?.trim() === 'custom' ? fields.background_custom : fields.background
    const background = parseField(backgroundSchema, chosen)
    return background ? { background } : {}
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
        const out = await removeBackground(image, { background: input.options.background, signal: input.signal, progress })
        return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs }
      },
    ),
  // ISNet when installed, else U²-Netp: the remover's own choice (loaded lazily like the run).
  model: async () => (await import('../background-remover.server')).activeSegmenter().id,
  outputName: (options) => (options.background ? cutoutFilename(options.background) : TOOLS['background-remover'].downloadName),
}
