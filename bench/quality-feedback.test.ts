// The quality bench's --from-feedback reader (decision 175) on a small export made here: a corrected
// cutout becomes a scene whose truth is its expected matte and whose image is its input as the run
// decoded it; a cutout without an expected matte, another tool's case and a matte of the wrong size
// are listed with why, not scored; a name in case.json cannot reach out of its folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import type { FeedbackCaseJson } from '../app/catalog/feedback'
import { NO_EXPECTED_MATTE, NO_INPUT, NOT_A_CUTOUT, readFeedbackExport } from './quality-feedback'

const scratch = mkdtempSync(path.join(os.tmpdir(), 'facet-feedback-export-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const W = 24
const H = 16

function caseJson(over: Partial<FeedbackCaseJson>): FeedbackCaseJson {
  return {
    format: 'facet-feedback-case/1',
    job_id: '00000000-0000-4000-8000-000000000000',
    tool: 'background-remover',
    options: {},
    model: 'u2netp',
    note: null,
    reported_at: '2026-11-27T12:00:00.000Z',
    expires_at: '2026-11-28T12:00:00.000Z',
    width: W,
    height: H,
    input: 'input.png',
    output: 'output.png',
    studio_matte: 'studio-matte.png',
    expected_matte: 'expected-matte.png',
    output_corrected: true,
    expected_faces: null,
    ...over,
  }
}

async function writeCase(name: string, json: FeedbackCaseJson, files: Record<string, Buffer>) {
  const folder = path.join(scratch, 'export', name)
  mkdirSync(folder, { recursive: true })
  writeFileSync(path.join(folder, 'case.json'), JSON.stringify(json))
  for (const [file, bytes] of Object.entries(files)) writeFileSync(path.join(folder, file), bytes)
}

/** A photo with a different colour at each pixel, and a matte: a rectangle opaque, the rest clear. */
async function pictures(matteWidth = W, matteHeight = H) {
  const rgb = Buffer.alloc(W * H * 3)
  for (let p = 0; p < W * H; p++) rgb.set([p % 256, (p * 7) % 256, 200], p * 3)
  const photo = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer()
  const alpha = Buffer.alloc(matteWidth * matteHeight)
  for (let y = 4; y < Math.min(12, matteHeight); y++) alpha.fill(255, y * matteWidth + 6, y * matteWidth + Math.min(18, matteWidth))
  const matte = await sharp(alpha, { raw: { width: matteWidth, height: matteHeight, channels: 1 } }).toColourspace('b-w').png().toBuffer()
  return { rgb, photo, alpha, matte }
}

describe('reading a feedback export as scenes', () => {
  it('scores a corrected cutout against its expected matte and lists the rest with why', async () => {
    const { rgb, photo, alpha, matte } = await pictures()
    await writeCase('2026-11-27-background-remover-a', caseJson({ note: 'the fin' }), { 'input.png': photo, 'output.png': photo, 'studio-matte.png': matte, 'expected-matte.png': matte })
    await writeCase('2026-11-27-background-remover-b', caseJson({ expected_matte: null, output_corrected: false }), { 'input.png': photo, 'output.png': photo })
    await writeCase('2026-11-27-image-enhancer-c', caseJson({ tool: 'image-enhancer', input: null, expected_matte: null }), { 'output.png': photo })
    await writeCase('2026-11-27-background-remover-d', caseJson({ input: null }), { 'output.png': photo, 'expected-matte.png': matte })
    const small = await pictures(W / 2, H / 2)
    await writeCase('2026-11-27-background-remover-e', caseJson({}), { 'input.png': photo, 'output.png': photo, 'expected-matte.png': small.matte })
    // A name that would leave the folder is no file.
    await writeCase('2026-11-27-background-remover-f', caseJson({ input: '../2026-11-27-background-remover-a/input.png' }), { 'output.png': photo })

    const read = await readFeedbackExport(path.join(scratch, 'export'))
    expect(read.scenes.map((s) => s.id)).toEqual(['2026-11-27-background-remover-a'])
    const [scene] = read.scenes
    expect(scene!.note).toBe('the fin')
    expect([scene!.image.width, scene!.image.height]).toEqual([W, H])
    expect(Buffer.compare(Buffer.from(scene!.truthAlpha), alpha)).toBe(0)
    expect(Buffer.compare(Buffer.from(scene!.truthRgb), rgb)).toBe(0)
    expect(read.unscored).toEqual([
      { id: '2026-11-27-background-remover-b', tool: 'background-remover', note: null, reason: NO_EXPECTED_MATTE },
      { id: '2026-11-27-background-remover-d', tool: 'background-remover', note: null, reason: NO_INPUT },
      { id: '2026-11-27-background-remover-e', tool: 'background-remover', note: null, reason: `the expected matte is ${W / 2}×${H / 2}, the input ${W}×${H}` },
      { id: '2026-11-27-background-remover-f', tool: 'background-remover', note: null, reason: NO_INPUT },
      { id: '2026-11-27-image-enhancer-c', tool: 'image-enhancer', note: null, reason: NOT_A_CUTOUT },
    ])
    // One case's own folder reads as an export of one.
    const one = await readFeedbackExport(path.join(scratch, 'export', '2026-11-27-background-remover-a'))
    expect(one.scenes).toHaveLength(1)
  })

  it('refuses a path that is not a folder, saying what it takes', async () => {
    await expect(readFeedbackExport(path.join(scratch, 'absent'))).rejects.toThrow(/unzipped export from \/console\/feedback/)
  })
})
