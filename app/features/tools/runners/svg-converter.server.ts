// SVG converter: the SVG sanitised, its output size checked, rendered by resvg (librsvg where resvg
// cannot draw it), encoded by sharp.
import { z } from 'zod'
import { SVG_FORMATS, SVG_SCALES, type SvgFormat } from '../../../catalog/tools'
import { checkOutputSize, convertSvg, parseBackground } from '../svg-converter.server'
import { sanitizeSvg, type SanitizedSvg } from '../svg-sanitize.server'
import { baseName, parseField } from './options.server'
import { runProgress } from './progress'
import type { ToolRunner } from '../../jobs/runner'

export interface SvgConverterOptions {
  format: SvgFormat
  scale: number
  /** Any CSS colour, applied only when sent (JPEG without one is flattened on white). */
  background?: string
}

const FORMAT_MESSAGE = `format must be one of ${SVG_FORMATS.join(', ')}.`
const SCALE_MESSAGE = `scale must be one of ${SVG_SCALES.join(', ')}.`
const formatSchema = z.enum(SVG_FORMATS, { error: FORMAT_MESSAGE })
const scaleSchema = z
  .string({ error: SCALE_MESSAGE })
  .trim()
  .refine((v) => v !== '' && SVG_SCALES.some((s) => Number(s) === Number(v)), SCALE_MESSAGE)
  .transform(Number)

export const svgConverterRunner: ToolRunner<SvgConverterOptions> = {
  slug: 'svg-converter',
  optionFields: ['format', 'scale', 'background'],
  async parseOptions(fields) {
    const format = parseField(formatSchema, fields.format?.trim().toLowerCase())
    const scale = parseField(scaleSchema, fields.scale)
    if (fields.background === undefined) return { format, scale }
    return { format, scale, background: await parseBackground(fields.background) }
  },
  async inspect(bytes, options) {
    const svg = await sanitizeSvg(bytes)
    checkOutputSize(svg, options.scale)
    return { width: Math.round(svg.width), height: Math.round(svg.height), notes: [], prepared: svg }
  },
  async run(input) {
    // Steps: 1 'Rendering raster output', 2 'Preparing download'.
    const progress = runProgress('svg-converter', input.progress, {
      sanitised: { from: 0, to: 0.1, step: 1 },
      rendered: { from: 0.1, to: 0.8, step: 1 },
      encoded: { from: 0.8, to: 1, step: 2 },
    })
    // Sanitised already when the run is in the process that checked it (the same bytes).
    const svg = (input.prepared as SanitizedSvg | undefined) ?? (await sanitizeSvg(input.bytes))
    await input.decoded?.()
    progress.phase('sanitised', 1)
    const out = await convertSvg(svg, input.options, input.signal, progress.phase)
    progress.done()
    return { bytes: out.bytes, contentType: out.contentType, modelMs: out.renderMs, model: out.renderer, note: out.note }
  },
  // No model: resvg renders (librsvg for a file resvg cannot draw, told in the run's own model).
  model: async () => 'resvg',
  outputName: (options, originalName) => `${baseName(originalName) || 'converted'}.${options.format}`,
}
