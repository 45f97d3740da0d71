// Every valid SVG converts (issue 35, decision 164): each SVG fixture, and every SVG of a corpus of
// real-world files when SVG_CORPUS_DIR names one (folders separated by ':'; Debian's openclipart-svg
// and tango-icon-theme, say), goes through the converter's own path: sanitised, then drawn by resvg
// or, where resvg cannot, by librsvg, in the renderer pool. A file the studio refuses by its rules (a
// DOCTYPE with entities, not an SVG, over the upload limit) is counted apart; a file that fails to
// draw fails the test unless it is listed in NEITHER_DRAWS with why neither renderer can draw it.
import { lstat, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { MEGABYTE, TOOLS } from '../../catalog/tools'
import { ToolError } from '../jobs/errors.server'
import { convertSvg, resetSvgRenderersForTests } from './svg-converter.server'
import { sanitizeSvg } from './svg-sanitize.server'

/** Files (by path inside their corpus folder) that neither renderer draws, with why: none found so far. */
const NEITHER_DRAWS: Record<string, string> = {}

/** Outputs are kept to about 4 MP: the point is whether a file draws, not at what size. */
const PIXEL_BUDGET = 4_000_000

type Verdict = { kind: 'resvg' | 'librsvg' } | { kind: 'refused' | 'failed'; why: string }

async function svgFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true })
  const files: string[] = []
  for (const name of names.sort()) {
    if (!name.toLowerCase().endsWith('.svg')) continue
    // A symbolic link is another name for a file counted under its own (the packages link icons).
    if ((await lstat(path.join(dir, name))).isFile()) files.push(name)
  }
  return files
}

async function convertOne(file: string): Promise<Verdict> {
  const bytes = await readFile(file)
  if (bytes.byteLength > TOOLS['svg-converter'].maxMegabytes * MEGABYTE) return { kind: 'refused', why: 'over the upload limit' }
  let svg
  try {
    svg = await sanitizeSvg(bytes)
  } catch (error) {
    if (error instanceof ToolError) return { kind: 'refused', why: error.message }
    throw error
  }
  const scale = Math.min(1, Math.sqrt(PIXEL_BUDGET / (svg.width * svg.height)))
  try {
    const out = await convertSvg(svg, { format: 'png', scale })
    return { kind: out.renderer }
  } catch (error) {
    if (error instanceof ToolError) return { kind: 'failed', why: error.message }
    throw error
  }
}

/** Converts every SVG under `dir`, two at a time (the pool's size), and prints the counts. */
async function convertAll(dir: string) {
  const files = await svgFiles(dir)
  const verdicts = new Map<string, Verdict>()
  let next = 0
  const worker = async () => {
    while (next < files.length) {
      const name = files[next++]!
      verdicts.set(name, await convertOne(path.join(dir, name)))
    }
  }
  await Promise.all([worker(), worker()])
  const named = (kind: Verdict['kind']) => [...verdicts].filter(([, v]) => v.kind === kind) as [string, Verdict & { why?: string }][]
  const counts = { files: files.length, resvg: named('resvg').length, librsvg: named('librsvg').length, refused: named('refused').length, failed: named('failed').length }
  console.log(`SVG corpus ${dir}: ${JSON.stringify(counts)}`)
  for (const [name, verdict] of [...named('librsvg'), ...named('refused'), ...named('failed')]) {
    console.log(`  ${verdict.kind}: ${name}${verdict.why ? ` (${verdict.why})` : ''}`)
  }
  return { files, failed: named('failed') }
}

// Whether a file draws, not how fast on a shared machine: a few clip-art files take resvg 15 s and
// more (two at a time, on two busy cores, past the 30 s limit a conversion has).
beforeAll(() => {
  process.env.SVG_RENDER_TIMEOUT_MS = '180000'
  resetConfigForTests()
  resetSvgRenderersForTests()
})
afterAll(() => {
  delete process.env.SVG_RENDER_TIMEOUT_MS
  resetConfigForTests()
  resetSvgRenderersForTests()
})

describe('every valid SVG converts', () => {
  it('each SVG fixture, the one that crashes resvg among them', async () => {
    const fixtures = [path.resolve('tests/fixtures/svg'), ...(process.env.FIXTURES_DIR ? [path.join(process.env.FIXTURES_DIR, 'svg')] : [])]
    for (const dir of fixtures) {
      const { files, failed } = await convertAll(dir)
      expect(files.length).toBeGreaterThan(0)
      expect(failed).toEqual([])
    }
  })

  const corpus = (process.env.SVG_CORPUS_DIR ?? '').split(':').filter(Boolean)
  if (corpus.length === 0) {
    console.log('The SVG corpus is skipped: SVG_CORPUS_DIR is not set (for example /usr/share/openclipart/svg:/usr/share/icons/Tango/scalable).')
  }
  it.skipIf(corpus.length === 0).each(corpus)(
    'every SVG under %s, but for the files neither renderer can draw (listed with why)',
    async (dir) => {
      const { files, failed } = await convertAll(dir)
      expect(files.length).toBeGreaterThan(0)
      const unexpected = failed.filter(([name]) => !(name in NEITHER_DRAWS))
      expect(unexpected).toEqual([])
    },
    // Thousands of files on a shared two-core machine: a safety net for a hang, not a speed check.
    3_600_000,
  )
})
