// A result's preview (issue 35 item 2, decision 179): what the workspace's before/after shows, at most
// PREVIEW_PIXELS on a side, as WebP (alpha kept: a cutout's transparency still shows on its backdrop).
// On a 400 kbit/s phone link the remover's full PNG (about 500 KB) took ten seconds; its preview is a
// tenth of that. A result already small enough in bytes is served as it is. Previews are kept in this
// process (least recently used first out, bounded in bytes) under the result's id and a hash of its bytes,
// so a corrected result (same id, new bytes) never gets the old picture. Who may read it is the caller's
// business (result-access.server.ts): this module only makes pictures.
import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { logger } from '~/utils/logger.server'
import type { StoredResult } from '../jobs/results.server'

/** The longest side of a preview: a phone's stage at 2-3× and a laptop's at 1×, sharp enough to judge. */
export const PREVIEW_PIXELS = 800
/** A result this small (in bytes) is its own preview: making one would save next to nothing. */
export const PREVIEW_KEEP_BYTES = 48 * 1024
export const PREVIEW_TYPE = 'image/webp'
/** The previews kept in memory, in bytes (about 400 of them at 40 KB). */
const CACHE_BYTES = 16 * 1024 * 1024

export interface ResultPreview {
  bytes: Buffer
  contentType: string
  /** A strong validator: the hash of the result's bytes and the preview's size. */
  etag: string
}

/** A Map keeps insertion order: re-inserting on each hit makes its first key the least recently used. */
const kept = new Map<string, ResultPreview>()
let keptBytes = 0
const making = new Map<string, Promise<ResultPreview>>()

function keep(key: string, preview: ResultPreview) {
  if (preview.bytes.byteLength > CACHE_BYTES / 4) return
  kept.set(key, preview)
  keptBytes += preview.bytes.byteLength
  for (const [oldest, old] of kept) {
    if (keptBytes <= CACHE_BYTES) break
    kept.delete(oldest)
    keptBytes -= old.bytes.byteLength
  }
}

/** Makes the preview of image bytes: EXIF orientation applied, never enlarged, alpha kept. */
export async function makePreview(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { failOn: 'none' })
    .rotate()
    .resize(PREVIEW_PIXELS, PREVIEW_PIXELS, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 75, alphaQuality: 90, effort: 2 })
    .toBuffer()
}

/** The preview of result `id` (already authorised), made once per result version and process. */
export async function resultPreview(id: string, result: Pick<StoredResult, 'bytes' | 'contentType'>): Promise<ResultPreview> {
  const hash = createHash('sha256').update(result.bytes).digest('base64url').slice(0, 22)
  const key = `${id}:${hash}`
  const hit = kept.get(key)
  if (hit) {
    kept.delete(key)
    kept.set(key, hit)
    return hit
  }
  const pending = making.get(key) ?? make(result, hash).finally(() => making.delete(key))
  making.set(key, pending)
  const preview = await pending
  if (!kept.has(key)) keep(key, preview)
  return preview
}

async function make(result: Pick<StoredResult, 'bytes' | 'contentType'>, hash: string): Promise<ResultPreview> {
  const itself = { bytes: result.bytes, contentType: result.contentType, etag: `"${hash}-full"` }
  if (result.bytes.byteLength <= PREVIEW_KEEP_BYTES) return itself
  try {
    const bytes = await makePreview(result.bytes)
    // A preview that is not smaller (a small, flat picture) is no preview: the result serves.
    return bytes.byteLength < result.bytes.byteLength ? { bytes, contentType: PREVIEW_TYPE, etag: `"${hash}-${PREVIEW_PIXELS}"` } : itself
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'result preview could not be made; the result serves')
    return itself
  }
}
