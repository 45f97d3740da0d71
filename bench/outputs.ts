// What the tools' results weigh against their uploads, and what each output format costs
// (decision 173). Each case runs a tool's runner on a fixture as uploaded, asking for PNG (the
// lossless result), then encodes that result by the default rule (what the API, a batch and the
// screens answer when no format is sent) and in every offered format, and reports:
//   - bpp ratio: the file's bytes per pixel over the upload's (the goal: at most 1.5 for an opaque default);
//   - SSIM against the lossless result (bench/ssim.ts; 1 is identical);
//   - the encode time per format (from the lossless PNG, as runRaster converts; AVIF at its fastest
//     effort is measured for reference only: it is not offered).
// The JPEG quality sweep shows what the quality range was chosen from. The "phone" case is a
// synthetic 3 MP JPEG (a fixture enlarged, saved at quality 92, 4:2:0) that the enhancer takes to 12 MP.
//   npm run bench -- outputs      or      npx tsx bench/outputs.ts
import { readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { ToolSlug } from '../app/catalog/tools'
import type { RgbaImage } from '../app/features/tools/image'
import { chooseEncoding, convertResult, encodeWith, type Encoding } from '../app/features/tools/output-format.server'
import { runnerFor } from '../app/features/tools/runners/index.server'
import { ssim } from './ssim'
import { PHOTOS, runAsScript } from './support'

interface Case {
  tool: ToolSlug
  fixture: string
  options: Record<string, unknown>
  /** The upload's bytes; a fixture file unless made here. */
  upload?: () => Promise<Buffer>
}

const CASES: Case[] = [
  { tool: 'face-blurrer', fixture: 'group-nasa-astronaut-class.jpg', options: { blur: 24 } },
  { tool: 'face-blurrer', fixture: 'noface-rocket.jpg', options: { blur: 24 } },
  { tool: 'face-blurrer', fixture: 'product-gameboy-white-bg.jpg', options: { blur: 24 } },
  { tool: 'face-blurrer', fixture: 'portrait-astronaut.png', options: { blur: 24 } },
  { tool: 'face-restorer', fixture: 'degraded-face-astronaut-128px-q35.jpg', options: {} },
  { tool: 'image-enhancer', fixture: 'degraded-face-astronaut-128px-q35.jpg', options: {} },
  { tool: 'image-enhancer', fixture: 'group-nasa-astronaut-class.jpg', options: {} },
  { tool: 'image-enhancer', fixture: 'phone-3mp-q92.jpg (noface-rocket.jpg enlarged)', options: {}, upload: phoneJpeg },
  { tool: 'background-remover', fixture: 'product-gameboy-white-bg.jpg', options: { background: 'white' } },
  { tool: 'background-remover', fixture: 'product-gameboy-white-bg.jpg', options: {} },
]

/** The JPEG qualities swept for every opaque result. */
const SWEEP = [75, 80, 85, 90, 95]

/** The offered formats (and AVIF, for reference) as encodings of this upload's result. */
function formats(upload: Buffer, opaque: boolean): Array<{ name: string; encoding: Encoding | 'avif' }> {
  return [
    { name: 'png', encoding: { format: 'png' } },
    { name: 'jpg', encoding: chooseEncoding('jpg', upload, opaque) },
    { name: 'webp', encoding: chooseEncoding('webp', upload, opaque) },
    { name: 'avif (effort 0, not offered)', encoding: 'avif' },
  ]
}

/** A 3 MP "phone photo": the rocket enlarged to 2000 px wide, saved as a camera would (q92, 4:2:0). */
async function phoneJpeg(): Promise<Buffer> {
  return sharp(path.join(PHOTOS, 'noface-rocket.jpg')).resize(2000, 1334, { kernel: 'lanczos3' }).jpeg({ quality: 92 }).toBuffer()
}

/** Decoded, flattened on white (a transparent result is compared as it would be seen on a page). */
async function seen(bytes: Buffer): Promise<RgbaImage> {
  const { data, info } = await sharp(bytes).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: Math.round(performance.now() - started) }
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

export async function benchOutputs() {
  const rows = []
  for (const c of CASES) {
    const upload = c.upload ? await c.upload() : readFileSync(path.join(PHOTOS, c.fixture))
    const inMeta = await sharp(upload).metadata()
    const inBpp = upload.length / (inMeta.width! * inMeta.height!)
    const run = await timed(() =>
      runnerFor(c.tool).run({ bytes: upload, options: { ...c.options, format: 'png' }, signal: new AbortController().signal, progress: () => {} }),
    )
    const lossless = run.value.bytes
    const outMeta = await sharp(lossless).metadata()
    const pixels = outMeta.width! * outMeta.height!
    const reference = await seen(lossless)
    const measure = async (bytes: Buffer) => ({ bppRatio: round(bytes.length / pixels / inBpp, 2), ssim: round(ssim(reference, await seen(bytes)), 4) })

    const byDefault = await timed(() => convertResult(lossless, 'auto', upload))
    const perFormat = []
    for (const { name, encoding } of formats(upload, !outMeta.hasAlpha)) {
      const encoded = await timed(() => (encoding === 'avif' ? sharp(lossless).avif({ quality: 60, effort: 0 }).toBuffer() : encodeWith(sharp(lossless), encoding)))
      perFormat.push({ format: name, kB: Math.round(encoded.value.length / 1024), ...(await measure(encoded.value)), encodeMs: encoded.ms })
    }
    const sweep = []
    if (!outMeta.hasAlpha) {
      for (const quality of SWEEP) {
        const jpeg = await sharp(lossless).jpeg({ quality, mozjpeg: true }).toBuffer()
        sweep.push({ quality, ...(await measure(jpeg)) })
      }
    }
    const row = {
      tool: c.tool,
      fixture: c.fixture,
      options: c.options,
      upload: { kB: Math.round(upload.length / 1024), width: inMeta.width, height: inMeta.height, format: inMeta.format },
      result: { width: outMeta.width, height: outMeta.height, alpha: outMeta.hasAlpha, runMs: run.ms },
      default: {
        type: byDefault.value.contentType,
        kB: Math.round(byDefault.value.bytes.length / 1024),
        ...(await measure(byDefault.value.bytes)),
        encodeMs: byDefault.ms,
      },
      formats: perFormat,
      jpegSweep: sweep,
    }
    rows.push(row)
    const d = row.default
    console.log(
      `${c.tool.padEnd(18)} ${c.fixture.slice(0, 40).padEnd(40)} ${JSON.stringify(c.options).padEnd(22)} in ${row.upload.kB} kB → ` +
        `default ${d.type} ${d.kB} kB, bpp ×${d.bppRatio}, SSIM ${d.ssim}, ${d.encodeMs} ms`,
    )
    for (const f of perFormat) console.log(`    ${f.format.padEnd(30)} ${String(f.kB).padStart(6)} kB  bpp ×${f.bppRatio}  SSIM ${f.ssim}  ${f.encodeMs} ms`)
    if (sweep.length) console.log(`    jpeg sweep: ${sweep.map((s) => `q${s.quality} ×${s.bppRatio} ${s.ssim}`).join(' | ')}`)
  }
  return { cases: rows }
}

runAsScript(import.meta.url, benchOutputs)
