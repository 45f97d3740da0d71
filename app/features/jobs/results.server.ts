// Results kept for a download link (the restorer's restored_url, result pages without JavaScript):
// encrypted with AES-256-GCM under the configured key, a fresh 12-byte IV per result and the row id
// as additional authenticated data (a ciphertext moved to another row does not decrypt). Readable
// only by the credit account that produced it (or through a signed link it was given: result-links.server.ts),
// deleted 24 hours later by the sweeper.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto'
import { config } from '~/config.server'
import { RESULT_KEPT_HOURS } from '~/catalog/retention'
import { getDb, type DB, type DbOrTx } from '~/db/db.server'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'

/** The hours a result is kept: the same number the site's storage sentence states (catalog/retention.ts). */
export const RESULT_TTL_HOURS = RESULT_KEPT_HOURS
const SWEEP_INTERVAL_MS = 60 * 60 * 1000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** What a run reported besides its bytes, kept so a replayed request gets the same answer. */
export interface RunDetails {
  facesFound?: number
  gfpganAvailable?: boolean
  /** The X-Facet-Note the run answered with. */
  note?: string
  /** The model that made it (X-Facet-Model), for tools with a choice of models. */
  model?: string
}

export interface StoredResult {
  bytes: Buffer
  contentType: string
  filename: string
  expiresAt: Date
  runDetails: RunDetails
}

/** AES-256-GCM with a fresh IV and `id` as additional data: a ciphertext moved to another row does not decrypt. */
export function sealBytes(id: string, bytes: Buffer, key: Buffer = config().resultsKey) {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(id))
  const ciphertext = Buffer.concat([cipher.update(bytes), cipher.final()])
  return { iv, ciphertext, auth_tag: cipher.getAuthTag() }
}

export function openBytes(id: string, row: { iv: Buffer; auth_tag: Buffer; ciphertext: Buffer }, key: Buffer = config().resultsKey): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, row.iv)
  decipher.setAAD(Buffer.from(id))
  decipher.setAuthTag(row.auth_tag)
  return Buffer.concat([decipher.update(row.ciphertext), decipher.final()])
}

/** When a result stored at `now` expires (what is kept with it, a correction's source, expires with it). */
export function resultExpiry(now: Date): Date {
  return new Date(now.getTime() + RESULT_TTL_HOURS * 3600_000)
}

export async function storeResult(
  input: {
    ownerAccountId: string
    bytes: Buffer
    contentType: string
    filename: string
    runDetails?: RunDetails
    /** A caller-chosen id (an idempotent run's); a random one otherwise. */
    id?: string
    now?: Date
  },
  db: DbOrTx = getDb(),
): Promise<string> {
  startResultsSweeper()
  const id = input.id ?? randomUUID()
  const now = input.now ?? new Date()
  await db
    .insertInto('results')
    .values({
      id,
      owner_account_id: input.ownerAccountId,
      content_type: input.contentType,
      filename: input.filename,
      run_details: input.runDetails ? JSON.stringify(input.runDetails) : null,
      ...sealBytes(id, input.bytes),
      created_at: now,
      expires_at: resultExpiry(now),
    })
    .execute()
  return id
}

/** What a stored result is (not its bytes), when `accountId` owns it and it has not expired. */
export async function readResultInfo(
  id: string,
  accountId: string,
  options: { now?: Date; db?: DB } = {},
): Promise<Omit<StoredResult, 'bytes'> | null> {
  if (!UUID.test(id)) return null
  const row = await (options.db ?? getDb())
    .selectFrom('results')
    .select(['content_type', 'filename', 'expires_at', 'run_details'])
    .where('id', '=', id)
    .where('owner_account_id', '=', accountId)
    .where('expires_at', '>', options.now ?? new Date())
    .executeTakeFirst()
  if (!row) return null
  return {
    contentType: row.content_type,
    filename: row.filename,
    expiresAt: new Date(row.expires_at),
    runDetails: (row.run_details as RunDetails | null) ?? {},
  }
}

/** The result, decrypted, when `accountId` owns it and it has not expired; null otherwise (one answer for all: 404). */
export async function readResult(
  id: string,
  accountId: string | null,
  options: { now?: Date; db?: DB } = {},
): Promise<StoredResult | null> {
  if (!accountId) return null
  return readStoredResult(id, { accountId }, options)
}

/**
 * The result for the holder of a signed link (result-links.server.ts): the signature, checked by the
 * caller, stands for the owner's credentials, so no owner is matched here.
 */
export async function readResultForSignedLink(id: string, options: { now?: Date; db?: DB } = {}): Promise<StoredResult | null> {
  return readStoredResult(id, 'signed-link', options)
}

async function readStoredResult(
  id: string,
  owner: { accountId: string } | 'signed-link',
  options: { now?: Date; db?: DB },
): Promise<StoredResult | null> {
  startResultsSweeper()
  if (!UUID.test(id)) return null
  const db = options.db ?? getDb()
  let query = db
    .selectFrom('results')
    .selectAll()
    .where('id', '=', id)
    .where('expires_at', '>', options.now ?? new Date())
  if (owner !== 'signed-link') query = query.where('owner_account_id', '=', owner.accountId)
  const row = await query.executeTakeFirst()
  if (!row) return null
  try {
    const bytes = openBytes(id, row)
    return {
      bytes,
      contentType: row.content_type,
      filename: row.filename,
      expiresAt: new Date(row.expires_at),
      runDetails: (row.run_details as RunDetails | null) ?? {},
    }
  } catch (error) {
    // A changed key or a tampered row: the result is gone as far as anyone can tell.
    logger.warn({ id, err: (error as Error).message }, 'stored result did not decrypt')
    return null
  }
}

/**
 * A corrected result replaces the stored one in its row (decision 157): the job's result_url serves
 * the latest. Its small picture is made again on its next request.
 */
export async function replaceResultBytes(id: string, input: { bytes: Buffer; contentType: string }, db: DbOrTx = getDb()): Promise<void> {
  await db
    .updateTable('results')
    .set({ content_type: input.contentType, ...sealBytes(id, input.bytes) })
    .where('id', '=', id)
    .execute()
  await db.deleteFrom('result_thumbnails').where('result_id', '=', id).execute()
}

export async function sweepExpiredResults(now: Date = new Date(), db: DB = getDb()): Promise<number> {
  const deleted = await db.deleteFrom('results').where('expires_at', '<=', now).executeTakeFirst()
  // What a correction needs lives as long as the result it corrects (migrations/0130).
  await db.deleteFrom('result_edits').where('expires_at', '<=', now).execute()
  // A report that a result is wrong lives as long as the result too (migrations/0133, decision 175).
  await db.deleteFrom('result_feedback').where('expires_at', '<=', now).execute()
  return Number(deleted.numDeletedRows)
}

/** Once per process: a sweep now and every hour after. The timer never keeps the process alive. */
export function startResultsSweeper(): void {
  singleton('results-sweeper', () => {
    const sweep = () =>
      sweepExpiredResults()
        .then((count) => count > 0 && logger.info({ count }, 'expired results deleted'))
        .catch((error: Error) => logger.warn({ err: error.message }, 'results sweep failed'))
    setTimeout(sweep, 1_000).unref()
    const timer = setInterval(sweep, SWEEP_INTERVAL_MS)
    timer.unref()
    return timer
  })
}
