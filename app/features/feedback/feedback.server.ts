// "This result is wrong" (issue 36 item 4, decision 175). A report is a case for the quality bench:
// the image the run was given (kept only where the run kept it: background removal and face blur,
// for corrections), the studio's output as delivered, and for a cutout the matte it delivered and,
// when the user corrected it, the corrected matte as the expected answer. Everything is packed and
// sealed when the report is made (store.server.ts) and lives as long as the result. Every door (the
// form, the API, the MCP tool) calls reportResult, which owns the rules: owner only, one report a
// job (a second one replaces the first, with a fresh case), the note's length, the pace.
import { fileTypeFromBuffer } from 'file-type'
import sharp from 'sharp'
import { findResultEdit, readEditMask, readEditSource } from '~/features/corrections/store.server'
import { correctedAlpha, openCutout, openFacesSource } from '~/features/corrections/render.server'
import { maskPixels } from '~/features/corrections/corrections.server'
import { pack, unpack } from '~/features/corrections/pack.server'
import type { CutoutFacts } from '~/features/corrections/keep.server'
import { DEFAULT_EDGES } from '~/features/corrections/types'
import { consumeRateLimit, retryAtSentence } from '~/features/security/rate-limit.server'
import { ToolError, badRequest } from '~/features/jobs/errors.server'
import { findOwnedJob } from '~/features/jobs/jobs.server'
import { readResult } from '~/features/jobs/results.server'
import { MAX_INPUT_PIXELS } from '~/features/tools/upload.server'
import { readReport, saveReport, type ReportFacts } from './store.server'
import {
  CASE_FILES,
  NOTE_MAX_CHARS,
  NOTE_TOO_LONG_MESSAGE,
  REPORT_EXPIRED_MESSAGE,
  REPORT_NOT_DELIVERED_MESSAGE,
  REPORT_NOT_FOUND_MESSAGE,
  type FeedbackCaseJson,
} from '~/catalog/feedback'

/** A report opens the seal and may render a matte at full size: an account's pace is bounded (one door or another). */
export const FEEDBACK_RATE = { name: 'feedback', points: 20, durationSeconds: 60 }

export interface ReportSummary {
  jobId: string
  tool: string
  note: string | null
  created: boolean
  reportedAt: string
  expiresAt: string
  hasInput: boolean
  hasExpectedMatte: boolean
}

/** The note as kept: trimmed, empty as none; longer than NOTE_MAX_CHARS is refused (400). */
export function readNote(value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw badRequest('note must be text.')
  const note = value.replace(/\r\n/g, '\n').trim()
  if ([...note].length > NOTE_MAX_CHARS) throw badRequest(NOTE_TOO_LONG_MESSAGE)
  return note === '' ? null : note
}

const OUTPUT_EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'application/zip': 'zip',
}

function outputName(contentType: string): string {
  return `${CASE_FILES.outputStem}.${OUTPUT_EXTENSIONS[contentType.split(';')[0]!.trim()] ?? 'bin'}`
}

async function inputName(upload: Buffer): Promise<string> {
  const type = await fileTypeFromBuffer(upload)
  return `${CASE_FILES.inputStem}.${type?.ext ?? 'bin'}`
}

function greyPng(alpha: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(alpha, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer()
}

interface BuiltCase {
  files: Record<string, Buffer>
  facts: Omit<ReportFacts, 'tool' | 'options' | 'model' | 'outputType' | 'files'>
}

/** What the run kept for corrections, as case files: the input, and a cutout's mattes. Nothing when it kept nothing. */
async function keptFiles(jobId: string, accountId: string, now: Date): Promise<BuiltCase> {
  const none: BuiltCase = { files: {}, facts: { width: null, height: null, outputCorrected: false, expectedFaces: null } }
  const edit = await findResultEdit(jobId, accountId, now)
  if (!edit) return none
  const corrected = edit.correctedAt !== null
  const { width, height } = edit.facts as CutoutFacts
  if (edit.kind === 'faces') {
    const packed = await readEditSource(jobId)
    if (!packed) return none
    const { upload } = openFacesSource(packed)
    return {
      files: { [await inputName(upload)]: upload },
      facts: { width, height, outputCorrected: corrected, expectedFaces: corrected ? (edit.corrections?.faces ?? null) : null },
    }
  }
  const opened = await openCutout(jobId, () => readEditSource(jobId))
  if (!opened) return none
  const files: Record<string, Buffer> = {
    [await inputName(opened.source.upload)]: opened.source.upload,
    [CASE_FILES.studioMatte]: await greyPng(opened.source.alpha, width, height),
  }
  if (corrected) {
    const stored = edit.corrections ?? { edges: DEFAULT_EDGES, parts: {}, faces: null }
    const maskPng = edit.hasMask ? await readEditMask(jobId) : null
    const mask = maskPng ? await maskPixels(maskPng, width, height) : []
    files[CASE_FILES.expectedMatte] = await greyPng(await correctedAlpha(opened, { edges: stored.edges, parts: stored.parts, mask }), width, height)
  }
  return { files, facts: { width, height, outputCorrected: corrected, expectedFaces: null } }
}

async function spendReport(accountId: string): Promise<void> {
  const limited = await consumeRateLimit(FEEDBACK_RATE, `account:${accountId}`)
  if (!limited.ok) {
    throw new ToolError(429, `Too many reports in a short time. ${retryAtSentence(limited.retryAfterSeconds)}`, {
      headers: { 'Retry-After': String(limited.retryAfterSeconds) },
    })
  }
}

/**
 * Reports `accountId`'s job's result as wrong, with an optional note. Throws ToolError: 400 (note),
 * 404 (not the account's job), 409 (no result), 410 (the result has expired), 429 (pace).
 */
export async function reportResult(jobId: string, accountId: string, rawNote: unknown, now: Date = new Date()): Promise<ReportSummary> {
  const note = readNote(rawNote)
  const job = await findOwnedJob(jobId, accountId)
  if (!job) throw new ToolError(404, REPORT_NOT_FOUND_MESSAGE)
  await spendReport(accountId)
  if (job.status !== 'succeeded' || !job.result_id) throw new ToolError(409, REPORT_NOT_DELIVERED_MESSAGE)
  const result = await readResult(job.result_id, accountId, { now })
  if (!result) throw new ToolError(410, REPORT_EXPIRED_MESSAGE)
  const kept = await keptFiles(jobId, accountId, now)
  const files = { ...kept.files, [outputName(result.contentType)]: result.bytes }
  const facts: ReportFacts = {
    tool: job.tool,
    options: job.options ?? {},
    model: job.model ?? result.runDetails.model ?? null,
    outputType: result.contentType,
    files: Object.keys(files),
    ...kept.facts,
  }
  const { created } = await saveReport({ jobId, accountId, facts, packedCase: pack({ jobId }, files), note, now, expiresAt: result.expiresAt })
  return {
    jobId,
    tool: job.tool,
    note,
    created,
    reportedAt: now.toISOString(),
    expiresAt: result.expiresAt.toISOString(),
    hasInput: Object.keys(files).some((name) => name.startsWith(`${CASE_FILES.inputStem}.`)),
    hasExpectedMatte: CASE_FILES.expectedMatte in files,
  }
}

/** One file of a case, by its name in the case; null when the report or the file is not there. Operators only (the caller checks). */
export async function readCaseFile(jobId: string, name: string, now: Date = new Date()): Promise<Buffer | null> {
  const report = await readReport(jobId, now)
  if (!report) return null
  const { sections } = unpack<unknown>(report.packedCase)
  return Object.hasOwn(sections, name) ? sections[name]! : null
}

/** A case as its folder's files: case.json and every file kept. Null when the report is gone. */
export async function caseFolder(jobId: string, now: Date = new Date()): Promise<{ folder: string; files: Record<string, Buffer> } | null> {
  const report = await readReport(jobId, now)
  if (!report) return null
  const { sections } = unpack<unknown>(report.packedCase)
  const { facts } = report
  const named = (stem: string) => Object.keys(sections).find((name) => name.startsWith(`${stem}.`)) ?? null
  const json: FeedbackCaseJson = {
    format: 'facet-feedback-case/1',
    job_id: report.jobId,
    tool: report.tool,
    options: facts.options,
    model: facts.model,
    note: report.note,
    reported_at: report.updatedAt.toISOString(),
    expires_at: report.expiresAt.toISOString(),
    width: facts.width,
    height: facts.height,
    input: named(CASE_FILES.inputStem),
    output: named(CASE_FILES.outputStem) ?? '',
    studio_matte: CASE_FILES.studioMatte in sections ? CASE_FILES.studioMatte : null,
    expected_matte: CASE_FILES.expectedMatte in sections ? CASE_FILES.expectedMatte : null,
    output_corrected: facts.outputCorrected,
    expected_faces: facts.expectedFaces,
  }
  const day = report.createdAt.toISOString().slice(0, 10)
  return {
    folder: `${day}-${report.tool}-${report.jobId}`,
    files: { ...sections, [CASE_FILES.json]: Buffer.from(`${JSON.stringify(json, null, 2)}\n`) },
  }
}

/** Long side of a console thumbnail. */
const THUMBNAIL_SIDE = 160

/** A small PNG of a case's picture ('input', 'output', 'expected'); null when there is none or it is not an image. */
export async function caseThumbnail(jobId: string, which: string): Promise<Buffer | null> {
  const report = await readReport(jobId)
  if (!report) return null
  const { sections } = unpack<unknown>(report.packedCase)
  const name =
    which === 'expected'
      ? CASE_FILES.expectedMatte
      : which === 'input' || which === 'output'
        ? Object.keys(sections).find((n) => n.startsWith(`${which}.`))
        : undefined
  const bytes = name ? sections[name] : undefined
  if (!bytes) return null
  try {
    return await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize(THUMBNAIL_SIDE, THUMBNAIL_SIDE, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer()
  } catch {
    return null
  }
}
