// A result's thumbnail (history, the batch screen): made once per result, on its first request, from
// the decrypted result with sharp, then kept sealed beside it (result_thumbnails, deleted with the
// result). Served only to the account that owns the result, while the result lasts: the same check
// as the result itself (readResult), so a thumbnail never outlives or escapes its result.
import sharp from 'sharp'
import { getDb, type DB } from '~/db/db.server'
import { openBytes, readResult, sealBytes } from '~/features/jobs/results.server'
import { isUuid } from '~/utils/uuid'
import { logger } from '~/utils/logger.server'

/** The longest side of a thumbnail in pixels: shown at 80 CSS pixels, sharp on a 2× screen. */
export const THUMBNAIL_PIXELS = 160
export const THUMBNAIL_TYPE = 'image/webp'

/** The additional data of a thumbnail's seal: a result's own ciphertext cannot pass for it. */
const aad = (resultId: string) => `thumbnail:${resultId}`

/** A small WebP of any image sharp reads (EXIF orientation applied, never enlarged, alpha kept). */
export async function makeThumbnail(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { failOn: 'none' })
    .rotate()
    .resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 70, effort: 2 })
    .toBuffer()
}

const making = new Map<string, Promise<Buffer | null>>()

/**
 * The thumbnail of result `id` for `accountId`, made and kept on first request. Null when the
 * account does not own the result, when it has expired, or when it is not an image sharp reads.
 */
export async function readThumbnail(id: string, accountId: string | null, options: { now?: Date; db?: DB } = {}): Promise<Buffer | null> {
  if (!accountId || !isUuid(id)) return null
  const db = options.db ?? getDb()
  const kept = await db
    .selectFrom('result_thumbnails as t')
    .innerJoin('results as r', 'r.id', 't.result_id')
    .select(['t.iv', 't.auth_tag', 't.ciphertext'])
    .where('t.result_id', '=', id)
    .where('r.owner_account_id', '=', accountId)
    .where('r.expires_at', '>', options.now ?? new Date())
    .executeTakeFirst()
  if (kept) {
    try {
      return openBytes(aad(id), kept)
    } catch (error) {
      logger.warn({ id, err: (error as Error).message }, 'stored thumbnail did not decrypt')
      return null
    }
  }
  // Two requests for one new thumbnail in this process make it once.
  const key = `${id}:${accountId}`
  const pending = making.get(key) ?? makeAndKeep(id, accountId, options, db).finally(() => making.delete(key))
  making.set(key, pending)
  return pending
}

async function makeAndKeep(id: string, accountId: string, options: { now?: Date }, db: DB): Promise<Buffer | null> {
  const result = await readResult(id, accountId, { now: options.now, db })
  if (!result) return null
  let thumbnail: Buffer
  try {
    thumbnail = await makeThumbnail(result.bytes)
  } catch (error) {
    logger.warn({ id, err: (error as Error).message }, 'result thumbnail could not be made')
    return null
  }
  // Another process may have kept one meanwhile: theirs stands, this one is still a right answer.
  await db
    .insertInto('result_thumbnails')
    .values({ result_id: id, content_type: THUMBNAIL_TYPE, ...sealBytes(aad(id), thumbnail) })
    .onConflict((oc) => oc.column('result_id').doNothing())
    .execute()
  return thumbnail
}
