// The quality bench's --from-feedback DIR (decision 175): the results users reported as wrong, exported
// from the operator console (/console/feedback, a zip of one folder per case) and unzipped into DIR,
// read as scenes. A case is scored when it is a background removal with its input and an expected
// matte (the user's corrected matte); every other case is listed with why it is not scored. The
// scene's truth is the expected matte; its colours are the input's own (a corrected cutout has no
// other colour truth), so colour bleed on these scenes compares against the photo.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { FeedbackCaseJson } from '../app/catalog/feedback'
import { CASE_FILES } from '../app/catalog/feedback'
import { decodeToRgba } from '../app/features/tools/upload.server'
import type { Scene } from './quality-scenes'

export interface UnscoredCase {
  id: string
  tool: string
  note: string | null
  reason: string
}

export interface FeedbackScenes {
  scenes: (Scene & { note: string | null })[]
  unscored: UnscoredCase[]
}

export const NOT_A_CUTOUT = 'not a background removal: the bench scores mattes'
export const NO_EXPECTED_MATTE = 'no expected matte: the user did not correct the cutout'
export const NO_INPUT = 'the input image was not kept'

/** The case folders under DIR (DIR itself when it is one). */
function caseFolders(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--from-feedback takes a folder (an unzipped export from /console/feedback): ${dir} is not one`)
  if (existsSync(path.join(dir, CASE_FILES.json))) return [dir]
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, CASE_FILES.json)))
    .map((entry) => path.join(dir, entry.name))
    .sort()
}

/** A file named by case.json, inside the case's folder only (a name cannot reach out of it). */
function caseFile(folder: string, name: string | null): Buffer | null {
  if (!name || name !== path.basename(name)) return null
  const file = path.join(folder, name)
  return existsSync(file) ? readFileSync(file) : null
}

/** Reads an export: the scored scenes and the cases listed but not scored. */
export async function readFeedbackExport(dir: string): Promise<FeedbackScenes> {
  const out: FeedbackScenes = { scenes: [], unscored: [] }
  for (const folder of caseFolders(dir)) {
    const json = JSON.parse(readFileSync(path.join(folder, CASE_FILES.json), 'utf8')) as FeedbackCaseJson
    const id = path.basename(folder)
    const unscored = (reason: string) => out.unscored.push({ id, tool: json.tool, note: json.note, reason })
    if (json.tool !== 'background-remover') {
      unscored(NOT_A_CUTOUT)
      continue
    }
    const input = caseFile(folder, json.input)
    if (!input) {
      unscored(NO_INPUT)
      continue
    }
    const expected = caseFile(folder, json.expected_matte)
    if (!expected) {
      unscored(NO_EXPECTED_MATTE)
      continue
    }
    // The photo decoded as the run decoded it, and the matte at its size (the export writes both so).
    const image = await decodeToRgba(input)
    const matte = await sharp(expected).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
    if (matte.info.width !== image.width || matte.info.height !== image.height) {
      unscored(`the expected matte is ${matte.info.width}×${matte.info.height}, the input ${image.width}×${image.height}`)
      continue
    }
    const pixels = image.width * image.height
    const truthRgb = new Uint8Array(pixels * 3)
    for (let p = 0; p < pixels; p++) {
      truthRgb[p * 3] = image.data[p * 4]
      truthRgb[p * 3 + 1] = image.data[p * 4 + 1]
      truthRgb[p * 3 + 2] = image.data[p * 4 + 2]
    }
    out.scenes.push({ id, image, truthAlpha: new Uint8Array(matte.data), truthRgb, note: json.note })
  }
  return out
}

/** The cases not scored, as the bench prints them. */
export function printUnscored(unscored: UnscoredCase[]): void {
  if (unscored.length === 0) return
  console.error(`\n  ${unscored.length} reported case${unscored.length === 1 ? '' : 's'} listed, not scored:`)
  for (const c of unscored) console.error(`  ${c.id}  ${c.tool}: ${c.reason}${c.note ? `  (note: ${c.note})` : ''}`)
}
