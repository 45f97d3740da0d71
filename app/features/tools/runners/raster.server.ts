// What the four raster tools' runners share: the checks that need no decode, the decode inside the
// run (with its pixel limits), and the no-face refund of the two face tools.
import type { ToolSlug } from '../../../catalog/tools'
import type { PhaseProgress, RgbaImage } from '../image'
import { convertResult, requestedFormat } from '../output-format.server'
import { decodeToRgba, FIRST_FRAME_NOTE, readImageHeader, sniffImageType } from '../upload.server'
import { runProgress, type PhaseSpan } from './progress'
import type { Delivered, Inspected, RunInput } from '../../jobs/runner'

/** The real type from the bytes, then the header's pixel limits: nothing decoded yet. */
export async function inspectRaster(tool: ToolSlug, bytes: Buffer): Promise<Inspected> {
  await sniffImageType(bytes, tool)
  const header = await readImageHeader(bytes)
  return { width: header.width, height: header.height, notes: header.pages > 1 ? [FIRST_FRAME_NOTE] : [] }
}

/**
 * A raster run: decode the upload (first frame, oriented, sRGB RGBA, pixel-limited), let the caller
 * charge, then the tool's work, its phases reported through `plan` ('decoded' is the decode's share).
 * The work's PNG is then converted to the `format` option's type (absent: the default rule, which
 * follows the upload; output-format.server.ts), unless the work encodes the format itself
 * (`encodesFormat`: the remover, which composes its output anyway).
 */
export async function runRaster<Phase extends string>(
  tool: ToolSlug,
  input: RunInput<unknown>,
  plan: Record<Phase | 'decoded', PhaseSpan>,
  work: (image: RgbaImage, progress: PhaseProgress<Phase>) => Promise<Delivered>,
  { encodesFormat = false }: { encodesFormat?: boolean } = {},
): Promise<Delivered> {
  const progress = runProgress(tool, input.progress, plan)
  const image = await decodeToRgba(input.bytes)
  input.signal.throwIfAborted()
  await input.decoded?.()
  progress.phase('decoded', 1)
  let delivered = await work(image, progress.phase)
  if (!encodesFormat) {
    const converted = await inRequestedFormat(delivered.bytes, delivered.contentType, input.options, input.bytes)
    const note = [delivered.note, converted.note].filter(Boolean).join(' ') || null
    delivered = { ...delivered, bytes: converted.bytes, contentType: converted.contentType, note }
  }
  progress.done()
  return delivered
}

/** A work's PNG in the `format` option's type, or by the default rule (the run's and a correction's one conversion); anything else as it is. */
export async function inRequestedFormat(
  bytes: Buffer,
  contentType: string,
  options: unknown,
  upload: Buffer,
): Promise<{ bytes: Buffer; contentType: string; note: string | null }> {
  const format = requestedFormat(options)
  if (format === 'png' || contentType !== 'image/png') return { bytes, contentType, note: null }
  const converted = await convertResult(bytes, format, upload)
  return { bytes: converted.bytes, contentType: converted.contentType, note: converted.note ?? null }
}

export const NO_FACE_REFUND = 'Refund: no face found'

/** No face means nothing was anonymised or restored, so nothing is owed (the picture still comes back). */
export function refundWhenNoFace(delivered: Delivered): string | null {
  return delivered.facesFound === 0 ? NO_FACE_REFUND : null
}
