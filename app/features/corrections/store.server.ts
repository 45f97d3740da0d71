// The result_edits table (migrations/0130, decision 157): what a run kept for its corrections,
// sealed under RESULTS_KEY like the result, and the user's corrections apart from it (the brush
// mask sealed, the rest as JSON). It lives as long as the result and is swept with it.
import { getDb, type DbOrTx } from '~/db/db.server'
import { openBytes, sealBytes } from '~/features/jobs/results.server'
import type { KeptForCorrection } from '~/features/jobs/runner'
import { keepOpened, type OpenedByRun } from './render.server'
import type { Box, EdgeSettings, EditKind, PartDecision } from './types'

/** The corrections as stored (the mask apart, sealed). */
export interface StoredCorrections {
  edges: EdgeSettings
  parts: Record<string, PartDecision>
  /** Null: the detected boxes, uncorrected. */
  faces: Box[] | null
}

export interface EditRow {
  jobId: string
  accountId: string
  kind: EditKind
  facts: unknown
  corrections: StoredCorrections | null
  hasMask: boolean
  correctedAt: Date | null
  expiresAt: Date
}

// Each sealed piece has its own additional data: a source moved into the mask's place (or another row) does not open.
const sourceAad = (jobId: string) => `edit-source:${jobId}`
const maskAad = (jobId: string) => `edit-mask:${jobId}`

/** Stores what the run kept, in the transaction that stores its result, with the result's expiry. */
export async function insertResultEdit(
  input: { jobId: string; accountId: string; kept: KeptForCorrection; expiresAt: Date },
  db: DbOrTx = getDb(),
): Promise<void> {
  const sealed = sealBytes(sourceAad(input.jobId), input.kept.source)
  await db
    .insertInto('result_edits')
    .values({
      job_id: input.jobId,
      account_id: input.accountId,
      kind: input.kept.kind,
      facts: JSON.stringify(input.kept.facts),
      ...sealed,
      expires_at: input.expiresAt,
    })
    .execute()
  // The run's own decoded material, kept open for a first correction in this process (decision 169).
  if (input.kept.kind === 'cutout' && input.kept.opened) keepOpened(input.jobId, input.kept.opened as OpenedByRun)
}

function rowOf(row: {
  job_id: string
  account_id: string
  kind: EditKind
  facts: unknown
  corrections: unknown
  mask_ciphertext: Buffer | null
  corrected_at: Date | string | null
  expires_at: Date | string
}): EditRow {
  return {
    jobId: row.job_id,
    accountId: row.account_id,
    kind: row.kind,
    facts: typeof row.facts === 'string' ? JSON.parse(row.facts) : row.facts,
    corrections: (typeof row.corrections === 'string' ? JSON.parse(row.corrections) : row.corrections) as StoredCorrections | null,
    hasMask: row.mask_ciphertext !== null,
    correctedAt: row.corrected_at ? new Date(row.corrected_at) : null,
    expiresAt: new Date(row.expires_at),
  }
}

/** The edit row of `accountId`'s job, not expired; null otherwise. */
export async function findResultEdit(jobId: string, accountId: string, now: Date = new Date(), db: DbOrTx = getDb()): Promise<EditRow | null> {
  const row = await db
    .selectFrom('result_edits')
    .select(['job_id', 'account_id', 'kind', 'facts', 'corrections', 'mask_ciphertext', 'corrected_at', 'expires_at'])
    .where('job_id', '=', jobId)
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row ? rowOf(row) : null
}

/** The packed source, opened. */
export async function readEditSource(jobId: string, db: DbOrTx = getDb()): Promise<Buffer | null> {
  const row = await db.selectFrom('result_edits').select(['iv', 'auth_tag', 'ciphertext']).where('job_id', '=', jobId).executeTakeFirst()
  return row ? openBytes(sourceAad(jobId), row) : null
}

/** The stored brush mask (a greyscale PNG at the result's size), opened; null when none. */
export async function readEditMask(jobId: string, db: DbOrTx = getDb()): Promise<Buffer | null> {
  const row = await db
    .selectFrom('result_edits')
    .select(['mask_iv', 'mask_auth_tag', 'mask_ciphertext'])
    .where('job_id', '=', jobId)
    .executeTakeFirst()
  if (!row?.mask_iv || !row.mask_auth_tag || !row.mask_ciphertext) return null
  return openBytes(maskAad(jobId), { iv: row.mask_iv, auth_tag: row.mask_auth_tag, ciphertext: row.mask_ciphertext })
}

/** The facts found after the run (a cutout's parts, on its first opening). */
export async function saveFacts(jobId: string, facts: unknown, db: DbOrTx = getDb()): Promise<void> {
  await db.updateTable('result_edits').set({ facts: JSON.stringify(facts) }).where('job_id', '=', jobId).execute()
}

/** Saves the corrections (a null mask clears it; 'keep' leaves the stored one). Never touches the source. */
export async function saveCorrections(
  jobId: string,
  corrections: StoredCorrections,
  mask: Buffer | null | 'keep',
  now: Date,
  db: DbOrTx,
): Promise<void> {
  const sealed = mask && mask !== 'keep' ? sealBytes(maskAad(jobId), mask) : null
  await db
    .updateTable('result_edits')
    .set({
      corrections: JSON.stringify(corrections),
      corrected_at: now,
      ...(mask === 'keep'
        ? {}
        : { mask_iv: sealed?.iv ?? null, mask_auth_tag: sealed?.auth_tag ?? null, mask_ciphertext: sealed?.ciphertext ?? null }),
    })
    .where('job_id', '=', jobId)
    .execute()
}
