// The result_feedback table (migrations/0133, decision 175): one report per job. The case (packed
// files) and the note are sealed under RESULTS_KEY, each with its own additional data, as the
// result and its correction source are; the facts stay open for the console's list. A report
// expires with its result and is swept with it (jobs/results.server.ts).
import { sql } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import { openBytes, sealBytes } from '~/features/jobs/results.server'

/** What the console lists without opening a seal. */
export interface ReportFacts {
  tool: string
  options: unknown
  model: string | null
  width: number | null
  height: number | null
  /** The files the sealed case holds (names inside the pack). */
  files: string[]
  outputType: string
  outputCorrected: boolean
  expectedFaces: { x: number; y: number; width: number; height: number }[] | null
}

export interface ReportRow {
  jobId: string
  accountId: string
  tool: string
  facts: ReportFacts
  createdAt: Date
  updatedAt: Date
  expiresAt: Date
}

const caseAad = (jobId: string) => `feedback-case:${jobId}`
const noteAad = (jobId: string) => `feedback-note:${jobId}`

function sealedNote(jobId: string, note: string | null) {
  if (!note) return { note_iv: null, note_auth_tag: null, note_ciphertext: null }
  const sealed = sealBytes(noteAad(jobId), Buffer.from(note, 'utf8'))
  return { note_iv: sealed.iv, note_auth_tag: sealed.auth_tag, note_ciphertext: sealed.ciphertext }
}

function openNote(row: { job_id: string; note_iv: Buffer | null; note_auth_tag: Buffer | null; note_ciphertext: Buffer | null }): string | null {
  if (!row.note_iv || !row.note_auth_tag || !row.note_ciphertext) return null
  return openBytes(noteAad(row.job_id), { iv: row.note_iv, auth_tag: row.note_auth_tag, ciphertext: row.note_ciphertext }).toString('utf8')
}

/** The report, or its replacement (one per job: a second report replaces the case and the note). True when it was new. */
export async function saveReport(
  input: { jobId: string; accountId: string; facts: ReportFacts; packedCase: Buffer; note: string | null; now: Date; expiresAt: Date },
  db: DbOrTx = getDb(),
): Promise<{ created: boolean }> {
  const sealed = sealBytes(caseAad(input.jobId), input.packedCase)
  const values = {
    tool: input.facts.tool,
    facts: JSON.stringify(input.facts),
    ...sealed,
    ...sealedNote(input.jobId, input.note),
    updated_at: input.now,
    expires_at: input.expiresAt,
  }
  const row = await db
    .insertInto('result_feedback')
    .values({ job_id: input.jobId, account_id: input.accountId, created_at: input.now, ...values })
    .onConflict((oc) => oc.column('job_id').doUpdateSet(values))
    // xmax is 0 on a row this statement inserted, and set on one it updated.
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow()
  return { created: row.inserted }
}

function rowOf(row: {
  job_id: string
  account_id: string
  tool: string
  facts: unknown
  created_at: Date | string
  updated_at: Date | string
  expires_at: Date | string
}): ReportRow {
  return {
    jobId: row.job_id,
    accountId: row.account_id,
    tool: row.tool,
    facts: (typeof row.facts === 'string' ? JSON.parse(row.facts) : row.facts) as ReportFacts,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    expiresAt: new Date(row.expires_at),
  }
}

const LISTED = ['job_id', 'account_id', 'tool', 'facts', 'created_at', 'updated_at', 'expires_at'] as const

/** The reports not yet expired, newest first, with their notes opened (the console reads a page: limit is a page and one). */
export async function listReports(
  options: { limit: number; offset: number; now?: Date },
  db: DbOrTx = getDb(),
): Promise<(ReportRow & { note: string | null })[]> {
  const rows = await db
    .selectFrom('result_feedback')
    .select([...LISTED, 'note_iv', 'note_auth_tag', 'note_ciphertext'])
    .where('expires_at', '>', options.now ?? new Date())
    .orderBy('created_at', 'desc')
    .orderBy('job_id')
    .limit(options.limit)
    .offset(options.offset)
    .execute()
  return rows.map((row) => ({ ...rowOf(row), note: openNote(row) }))
}

/** Every report not yet expired, oldest first (the export of all). */
export async function allReportIds(now: Date = new Date(), db: DbOrTx = getDb()): Promise<string[]> {
  const rows = await db.selectFrom('result_feedback').select('job_id').where('expires_at', '>', now).orderBy('created_at').orderBy('job_id').execute()
  return rows.map((r) => r.job_id)
}

/** One report, its note and its packed case opened; null when there is none or it has expired. */
export async function readReport(
  jobId: string,
  now: Date = new Date(),
  db: DbOrTx = getDb(),
): Promise<(ReportRow & { note: string | null; packedCase: Buffer }) | null> {
  const row = await db
    .selectFrom('result_feedback')
    .select([...LISTED, 'iv', 'auth_tag', 'ciphertext', 'note_iv', 'note_auth_tag', 'note_ciphertext'])
    .where('job_id', '=', jobId)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  if (!row) return null
  return { ...rowOf(row), note: openNote(row), packedCase: openBytes(caseAad(jobId), row) }
}

/** A report's open facts (no seal opened); null when there is none or it has expired. */
export async function readReportFacts(jobId: string, now: Date = new Date(), db: DbOrTx = getDb()): Promise<ReportRow | null> {
  const row = await db.selectFrom('result_feedback').select(LISTED).where('job_id', '=', jobId).where('expires_at', '>', now).executeTakeFirst()
  return row ? rowOf(row) : null
}
