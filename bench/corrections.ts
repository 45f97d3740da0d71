// Issue 32 item 5 (decision 157): a correction applied to a 12 MP cutout, against the time the
// original run spent encoding that output (the PNG of the photo's colours and its refined matte).
// A correction runs no model: the kept source opened (inflate, the photo decoded again; the next
// correction of the same result finds it open), the mask blended, then the same encoding. Also:
// what the run keeps (bytes) and what keeping it costs the run.
//   npm run bench -- corrections     or     npx tsx bench/corrections.ts [runs]
import sharp from 'sharp'
import { maskPixels } from '../app/features/corrections/corrections.server'
import { keepCutout } from '../app/features/corrections/keep.server'
import { decodePhoto, openCutout, renderCorrectedCutout } from '../app/features/corrections/render.server'
import { DEFAULT_EDGES } from '../app/features/corrections/types'
import { encodeCutoutPng, removeBackground } from '../app/features/tools/background-remover.server'
import { fixtureAt, runAsScript } from './support'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now()
  const value = await work()
  return { ms: performance.now() - start, value }
}

export async function benchCorrections(runs = 3) {
  const photo = await fixtureAt('product-gameboy-white-bg.jpg', 12)
  // The upload as a camera would send it: a JPEG, decoded again by the correction as the run decoded it.
  const upload = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 4 } }).removeAlpha().jpeg({ quality: 90 }).toBuffer()
  const image = await decodePhoto(upload)
  const pixels = image.width * image.height
  const out = await removeBackground(image)
  const { material } = out
  const keep = await timed(() => keepCutout({ upload, backgroundImage: null, options: {}, image, ...material }))
  // A brush mask as the editor sends it: drawn on the 1024 px preview, a restoring and a removing stroke.
  const previewWidth = 1024
  const previewHeight = Math.round((1024 * image.height) / image.width)
  const maskData = Buffer.alloc(previewWidth * previewHeight, 128)
  for (let y = 100; y < 140; y++) maskData.fill(255, y * previewWidth + 100, y * previewWidth + 400)
  for (let y = 500; y < 530; y++) maskData.fill(0, y * previewWidth + 300, y * previewWidth + 700)
  const maskPng = await sharp(maskData, { raw: { width: previewWidth, height: previewHeight, channels: 1 } }).png().toBuffer()
  // Scaled to the result as a correction scales it (around the strokes only).
  const maskAtFullSize = () => maskPixels(maskPng, image.width, image.height)
  const packed = async () => keep.value.source
  const correct = async (jobId: string, mask: boolean) =>
    renderCorrectedCutout((await openCutout(jobId, packed))!, { edges: DEFAULT_EDGES, parts: {}, mask: mask ? await maskAtFullSize() : null })

  const encode: number[] = []
  const first: number[] = []
  const next: number[] = []
  let exact = true
  for (let r = 0; r < runs; r++) {
    encode.push((await timed(() => encodeCutoutPng(material.colours, material.alpha, image.width, image.height))).ms)
    // The first correction of a result opens its source; the next ones find it open.
    first.push((await timed(() => correct(`bench-${r}`, true))).ms)
    next.push((await timed(() => correct(`bench-${r}`, true))).ms)
    exact &&= (await correct(`bench-${r}`, false)).bytes.equals(out.bytes)
  }
  const result = {
    megapixels: Math.round(pixels / 1e5) / 10,
    keptBytes: keep.value.source.byteLength,
    uploadBytes: upload.byteLength,
    keptBytesPerMegapixel: Math.round(keep.value.source.byteLength / (pixels / 1e6)),
    keepMs: Math.round(keep.ms),
    encodeMs: Math.round(median(encode)),
    firstCorrectionMs: Math.round(median(first)),
    nextCorrectionMs: Math.round(median(next)),
    firstRatio: Math.round((median(first) / median(encode)) * 100) / 100,
    nextRatio: Math.round((median(next) / median(encode)) * 100) / 100,
    target: 1.3,
    neutralExact: exact,
  }
  console.table([result])
  return result
}

runAsScript(import.meta.url, () => benchCorrections(Number(process.argv[2] ?? 3)))
