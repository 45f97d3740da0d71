// What the four raster tools' runners share: the checks that need no decode, the decode inside the
// run (with its pixel limits), and the no-face refund of the two face tools.
import type { ToolSlug } from '../catalog'
import type { RgbaImage } from '../image'
import { decodeToRgba, FIRST_FRAME_NOTE, readImageHeader, sniffImageType } from '../upload.server'
import type { Delivered, Inspected, RunInput } from './types'

/** The real type from the bytes, then the header's pixel limits: nothing decoded yet. */
export async function inspectRaster(tool: ToolSlug, bytes: Buffer): Promise<Inspected> {
  await sniffImageType(bytes, tool)
  const header = await readImageHeader(bytes)
  return { width: header.width, height: header.height, notes: header.pages > 1 ? [FIRST_FRAME_NOTE] : [] }
}

/** Decodes the upload (first frame, oriented, sRGB RGBA, pixel-limited), then lets the caller charge. */
export async function decodeForRun(input: RunInput<unknown>): Promise<RgbaImage> {
  const image = await decodeToRgba(input.bytes)
  input.signal.throwIfAborted()
  await input.decoded?.()
  return image
}

export const NO_FACE_REFUND = 'Refund: no face found'

/** No face means nothing was anonymised or restored, so nothing is owed (the picture still comes back). */
export function refundWhenNoFace(delivered: Delivered): string | null {
  return delivered.facesFound === 0 ? NO_FACE_REFUND : null
}
