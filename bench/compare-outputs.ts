// Before/after check for changes that must not change what the tools answer: runs the background
// remover (transparent and on a colour) and the face blurrer of this checkout and of another one
// (e.g. `git worktree add /tmp/old main`, with node_modules and models linked) on fixtures at
// 12 MP, decodes both PNGs and compares the pixels. Exits 1 on any visible difference. Colour under
// fully transparent pixels is not visible content: since decision 068 a cutout writes it as 0, so
// against an older checkout those outputs are reported as "identical visible content".
//   npx tsx bench/compare-outputs.ts /path/to/other/checkout
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import sharp from 'sharp'
import type { ToolOutput } from '../app/features/tools/image'
import { removeBackground } from '../app/features/tools/background-remover.server'
import { blurFaces } from '../app/features/tools/face-blurrer.server'
import { fixtureAt } from './support'

const other = process.argv[2]
if (!other) {
  console.error('usage: npx tsx bench/compare-outputs.ts /path/to/other/checkout')
  process.exit(2)
}
const load = (file: string) => import(pathToFileURL(path.resolve(other, file)).href)
const theirs = {
  removeBackground: (await load('app/features/tools/background-remover.server.ts')).removeBackground as typeof removeBackground,
  blurFaces: (await load('app/features/tools/face-blurrer.server.ts')).blurFaces as typeof blurFaces,
}

/** Same alpha everywhere, same colour wherever a pixel is not fully transparent. */
function sameVisibleContent(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i += 4) {
    if (a[i + 3] !== b[i + 3]) return false
    if (a[i + 3] !== 0 && (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])) return false
  }
  return true
}

const decode = (output: ToolOutput) => sharp(output.bytes).raw().toBuffer({ resolveWithObject: true })
let differences = 0
for (const name of ['product-gameboy-white-bg.jpg', 'portrait-astronaut.png', 'group-nasa-astronaut-class.jpg']) {
  const image = await fixtureAt(name, 12)
  const runs: [string, (tools: typeof theirs) => Promise<ToolOutput>][] = [
    ['remover', (t) => t.removeBackground(image)],
    ['remover on #123456', (t) => t.removeBackground(image, { background: '#123456' })],
    ['blurrer', (t) => t.blurFaces(image, { blur: 32 })],
  ]
  for (const [label, run] of runs) {
    const before = await run(theirs)
    const after = await run({ removeBackground, blurFaces })
    const [a, b] = await Promise.all([decode(before), decode(after)])
    const same = a.info.channels === b.info.channels && a.data.equals(b.data)
    const sameVisible = same || (a.info.channels === 4 && b.info.channels === 4 && sameVisibleContent(a.data, b.data))
    if (!sameVisible) differences++
    const mb = (bytes: Buffer) => (bytes.length / 1e6).toFixed(2)
    const verdict = same ? 'identical pixels' : sameVisible ? 'identical visible content (colour under alpha 0 differs)' : 'DIFFERENT'
    console.log(`${name} ${image.width}×${image.height} ${label}: ${verdict}, PNG ${mb(before.bytes)} → ${mb(after.bytes)} MB`)
  }
}
process.exit(differences ? 1 : 0)
