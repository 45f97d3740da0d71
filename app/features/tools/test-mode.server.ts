// What a test key's run changes (the facts are in api-keys/environments.ts): the raster input is
// downscaled to the cap before the run (so the run costs little work), and the result is capped
// too (tools that enlarge, such as the enhancer, or render, such as the SVG converter).
import sharp from 'sharp'
import { TEST_RESULT_MAX_PIXELS } from '~/features/api-keys/environments'
import { inputFamily, JPEG_DEFAULT_QUALITY } from '~/features/tools/output-format.server'
import type { Delivered, Inspected, ToolRunner } from '~/features/jobs/runner'

/** The size that fits `width × height` into TEST_RESULT_MAX_PIXELS, or null when it fits already. */
export function testModeSize(width: number, height: number): { width: number; height: number } | null {
  if (width * height <= TEST_RESULT_MAX_PIXELS) return null
  const factor = Math.sqrt(TEST_RESULT_MAX_PIXELS / (width * height))
  return { width: Math.max(1, Math.floor(width * factor)), height: Math.max(1, Math.floor(height * factor)) }
}

/**
 * A raster upload over the cap → the same picture within it, as a JPEG at the upload's quality when
 * it was a JPEG (the default output format follows the upload's family: a test key's run answers
 * the type a live key's would, decision 173), else as a PNG; SVG and small files unchanged.
 */
export async function downscaleTestInput(bytes: Buffer): Promise<Buffer> {
  const meta = await sharp(bytes).metadata().catch(() => null)
  if (!meta || meta.format === 'svg' || !meta.width || !meta.height) return bytes
  // EXIF orientations 5-8 swap the sides of the picture as seen.
  const turned = (meta.orientation ?? 1) >= 5
  const size = turned ? testModeSize(meta.height, meta.width) : testModeSize(meta.width, meta.height)
  if (!size) return bytes
  // autoOrient first: the size is of the picture as seen. A file that does not decode is left as
  // it is: the run refuses it with the tool's own message, as for a live key.
  const smaller = sharp(bytes).autoOrient().resize({ ...size, fit: 'inside' })
  const family = inputFamily(bytes)
  const encoded = family.kind === 'jpeg' ? smaller.jpeg({ quality: family.quality ?? JPEG_DEFAULT_QUALITY }) : smaller.png()
  return encoded.toBuffer().catch(() => bytes)
}

/** A test run's result over the cap, downscaled in its own format. */
export async function capTestResult(delivered: Delivered): Promise<Delivered> {
  const image = delivered.contentType.startsWith('image/') && delivered.contentType !== 'image/svg+xml'
  if (!image) return delivered
  const meta = await sharp(delivered.bytes).metadata()
  const size = meta.width && meta.height ? testModeSize(meta.width, meta.height) : null
  if (!size || !meta.format) return delivered
  const bytes = await sharp(delivered.bytes).resize({ ...size, fit: 'inside' }).toFormat(meta.format).toBuffer()
  return { ...delivered, bytes }
}

/**
 * The checks without a decode on the bytes as sent (type, pixel limits: a test key must not make
 * sharp decode what a live key could not send), then for a test run the downscaled input, checked again.
 */
export async function inspectForRun(
  runner: ToolRunner<unknown>,
  bytes: Buffer,
  options: unknown,
  testMode: boolean,
): Promise<{ bytes: Buffer; inspected: Inspected }> {
  const inspected = await runner.inspect(bytes, options)
  if (!testMode) return { bytes, inspected }
  const smaller = await downscaleTestInput(bytes)
  if (smaller === bytes) return { bytes, inspected }
  const again = await runner.inspect(smaller, options)
  // The notes (a first frame used...) are about what was sent.
  return { bytes: smaller, inspected: { ...again, notes: inspected.notes } }
}
