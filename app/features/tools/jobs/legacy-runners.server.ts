// TEMPORARY: the runner contract (runners/types.ts) over today's submission.server.ts, until the
// `runners` branch lands one module per tool with real progress. Deleted at that merge; nothing
// but jobs/ imports it.
import type { ToolSlug } from '../catalog'
import type { ToolRunner } from '../runners/types'
import { checkOutputSize } from '../svg-converter.server'
import { decodeToRgba } from '../upload.server'
import { execute, OPTION_FIELDS, outputName, prepare, readSettings, type Settings } from '../submission.server'

export function runnerFor(slug: ToolSlug): ToolRunner<Settings> {
  return {
    slug,
    optionFields: OPTION_FIELDS[slug],
    parseOptions: (fields) => readSettings(slug, fields),
    async inspect(bytes, settings) {
      const prepared = await prepare(slug, { bytes, name: '' })
      if (prepared.kind === 'svg' && settings.tool === 'svg-converter') checkOutputSize(prepared.svg, settings.scale)
      return { width: prepared.width, height: prepared.height, notes: prepared.notes }
    },
    async run({ bytes, options, signal, progress }) {
      const prepared = await prepare(slug, { bytes, name: '' })
      const image = prepared.kind === 'image' ? await decodeToRgba(prepared.bytes) : null
      progress(0.2)
      const delivered = await execute(options, prepared, image, signal)
      progress(1)
      return delivered
    },
    outputName: (settings, original) => outputName(settings, original),
    refundReason: (delivered) =>
      (slug === 'face-blurrer' || slug === 'face-restorer') && delivered.facesFound === 0 ? 'Refund: no face found' : null,
  }
}
