// Issue 32 item 5 (decisions 157, 169): a correction applied to a 12 MP cutout, against the time the
// original run spent encoding that output, for each kind of output (PNG, a colour, WebP, JPEG on a
// colour, a background image, crop, shadow, the mask alone). A correction runs no model: the kept
// source opened (unsealed, the matte's runs filled in, the photo decoded again), the mask scaled and blended, then the
// same rendering. Four cases:
//   - first: a process that has not seen the cutout (everything read back from storage), as an API caller's
//     first POST /api/jobs/{id}/corrections/ meets it;
//   - in the editor: the first correction after the editor opened, which asks for the photo's preview to draw
//     the brush over (the cutout opened and its photo decoded then, before any stroke: decision 183);
//   - after run: the first correction in the process that ran it (the run handed its pixels over);
//   - next: a correction after a correction (the cutout is open).
// Each is a ratio against the encode measured in the same round (the machine is shared: the ratio
// is the figure, the milliseconds are the weather). Then where the first correction's time goes,
// stage by stage, each timed alone. Also what the run keeps (bytes) and what keeping it costs, and
// the first correction's CPU time against the encode's (decision 182).
//   npm run bench -- corrections     or     npx tsx bench/corrections.ts [rounds]
//   CORRECTION_KINDS=png,crop,shadow npx tsx bench/corrections.ts 3     (some kinds only)
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import sharp from 'sharp'
import { correctCutout, maskPixels } from '../app/features/corrections/corrections.server'
import { maskToRgba } from '../app/features/corrections/ui/brush-mask'
import { keepCutout } from '../app/features/corrections/keep.server'
import { unpack } from '../app/features/corrections/pack.server'
import {
  correctedAlpha,
  decodePhoto,
  forgetOpened,
  keepOpened,
  openCutout,
  openCutoutSource,
  photoOf,
  unmixInPlace,
  type OpenedByRun,
} from '../app/features/corrections/render.server'
import { DEFAULT_EDGES } from '../app/features/corrections/types'
import { removeBackground } from '../app/features/tools/background-remover.server'
import { openBytes, sealBytes } from '../app/features/jobs/results.server'
import { renderCutout, type BackgroundRemoverOptions } from '../app/features/tools/runners/background-remover.server'
import { fixtureAt, runAsScript } from './support'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const round2 = (n: number) => Math.round(n * 100) / 100

/**
 * Wall time, and the CPU time of the whole process (every thread: the image threads encode, libuv's
 * decode and inflate): on a loaded machine the work waits for a core, so the CPU ratio is the steadier
 * figure, and on two cores it bounds what overlapping can buy (decision 182).
 */
async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const value = await work()
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, value }
}

/** The kinds of output, as the remover's options (backgroundImage: the second file is sent). */
const KINDS: Array<{ name: string; options: BackgroundRemoverOptions }> = [
  { name: 'png', options: {} },
  { name: 'colour png', options: { background: 'white', format: 'png' } },
  // A colour with no type asked for: the upload's family (a JPEG here), flattened as a PNG and converted.
  { name: 'colour, upload type', options: { background: 'white' } },
  { name: 'webp', options: { format: 'webp' } },
  { name: 'jpeg on colour', options: { background: '#336699', format: 'jpg' } },
  { name: 'image background', options: { backgroundImage: true } },
  { name: 'crop', options: { crop: { margin: { value: 10, unit: 'px' } } } },
  { name: 'shadow', options: { shadow: true } },
  { name: 'mask only', options: { channels: 'alpha' } },
]

/** CORRECTION_KINDS=png,crop,shadow: only these kinds (by name, spaces as in KINDS); all by default. */
const WANTED_KINDS = process.env.CORRECTION_KINDS?.split(',').map((name) => name.trim())

export async function benchCorrections(rounds = 3) {
  const photo = await fixtureAt('product-gameboy-white-bg.jpg', 12)
  // The upload as a camera would send it: a JPEG, decoded again by the correction as the run decoded it.
  const upload = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 4 } }).removeAlpha().jpeg({ quality: 90 }).toBuffer()
  // A background image as a user would send one: a 2 MP JPEG, scaled to cover the output.
  const coffee = await fixtureAt('noface-coffee.png', 2)
  const backgroundImage = await sharp(coffee.data, { raw: { width: coffee.width, height: coffee.height, channels: 4 } }).removeAlpha().jpeg({ quality: 85 }).toBuffer()
  const image = await decodePhoto(upload)
  const { width, height } = image
  const pixels = width * height
  const out = await removeBackground(image)
  const { material } = out
  const key = randomBytes(32)

  // A brush mask as the editor sends it: drawn on the 1024 px preview, a restoring and a removing stroke,
  // put on the canvas as opaque grey RGBA (maskToRgba) and encoded as the canvas's PNG.
  const previewWidth = 1024
  const previewHeight = Math.round((1024 * height) / width)
  const maskData = Buffer.alloc(previewWidth * previewHeight, 128)
  for (let y = 100; y < 140; y++) maskData.fill(255, y * previewWidth + 100, y * previewWidth + 400)
  for (let y = 500; y < 530; y++) maskData.fill(0, y * previewWidth + 300, y * previewWidth + 700)
  const maskPng = await sharp(Buffer.from(maskToRgba(maskData).buffer), { raw: { width: previewWidth, height: previewHeight, channels: 4 } }).png().toBuffer()
  const corrections = { edges: DEFAULT_EDGES, parts: {} }

  const rows = []
  let keptBytes = 0
  let keepMs = 0
  for (const kind of KINDS.filter((k) => !WANTED_KINDS || WANTED_KINDS.includes(k.name))) {
    const background = kind.options.backgroundImage ? backgroundImage : null
    const kept = await timed(() => keepCutout({ upload, backgroundImage: background, options: kind.options, image, ...material }))
    keptBytes ||= kept.value.source.byteLength
    keepMs ||= kept.ms
    // What storage holds (sealed) and what a correction reads back (the row opened).
    const sealed = sealBytes('edit-source:bench', kept.value.source, key)
    const stored = async () => openBytes('edit-source:bench', sealed, key)
    // The run's encode of this output, from the run's own buffers (the colours in shared memory, as the run has
    // them): renderCutout, the one rendering of runs and corrections (a plain cutout's run streams the same
    // encoder; one on a colour is then converted to the upload's family unless PNG was asked for).
    const encode = () => renderCutout(kind.options, { ...image, data: material.colours }, material.alpha, upload, background).then((r) => r.bytes)
    const runBytes = await encode()
    const mask = () => maskPixels(maskPng, width, height)
    const correct = (jobId: string, withMask = true) => correctCutout(jobId, stored, withMask ? mask : async () => [], corrections)
    const figures = {
      encode: [] as number[],
      first: [] as number[],
      editor: [] as number[],
      afterRun: [] as number[],
      next: [] as number[],
      encodeCpu: [] as number[],
      firstCpu: [] as number[],
    }
    const stages: Record<string, number[]> = { unseal: [], open: [], decode: [], unmix: [], mask: [], alpha: [], render: [] }
    let exact = true
    for (let r = 0; r < rounds; r++) {
      const jobId = `bench-${kind.name}-${r}`
      const encoded = await timed(encode)
      figures.encode.push(encoded.ms)
      figures.encodeCpu.push(encoded.cpuMs)
      forgetOpened()
      const first = await timed(() => correct(jobId))
      figures.first.push(first.ms)
      figures.firstCpu.push(first.cpuMs)
      figures.next.push((await timed(() => correct(jobId))).ms)
      // The editor opened (its photo preview made from the decoded photo), then the first stroke applied.
      forgetOpened()
      await photoOf((await openCutout(`${jobId}-editor`, stored))!)
      figures.editor.push((await timed(() => correct(`${jobId}-editor`))).ms)
      // As the run leaves it: its source unpacked and its pixels handed over (store.server.ts on insert).
      keepOpened(`${jobId}-run`, kept.value.opened as OpenedByRun)
      // A correction is another request, after the run's answer has gone out: at least one turn of the loop.
      await new Promise((resolve) => setImmediate(resolve))
      figures.afterRun.push((await timed(() => correct(`${jobId}-run`))).ms)
      // A neutral correction gives the run's bytes back, from storage and from the run's memory.
      forgetOpened()
      exact &&= (await correct(`${jobId}-neutral`, false)).bytes.equals(runBytes)
      exact &&= (await correct(`${jobId}-neutral`, false)).bytes.equals(runBytes)
      // Where the first correction's time goes: each stage alone, one after another (in a correction
      // the decode runs beside the opening, the mask and the alpha).
      const packed = (await timed(stored)).value
      stages.unseal.push((await timed(stored)).ms)
      const source = await timed(() => openCutoutSource(packed))
      stages.open.push(source.ms)
      const decoded = await timed(() => decodePhoto(source.value.upload))
      stages.decode.push(decoded.ms)
      const colours = await timed(() => unmixInPlace(decoded.value, source.value))
      stages.unmix.push(colours.ms)
      const layer = await timed(mask)
      stages.mask.push(layer.ms)
      const opened = { jobId: 'stages', source: source.value, colours: Promise.resolve(colours.value) }
      const alpha = await timed(() => correctedAlpha(opened, { ...corrections, mask: layer.value }))
      stages.alpha.push(alpha.ms)
      stages.render.push((await timed(() => renderCutout(kind.options, colours.value.unmixed, alpha.value, upload, background))).ms)
    }
    forgetOpened()
    const encodeMs = median(figures.encode)
    const ratio = (values: number[]) => round2(median(values) / encodeMs)
    rows.push({
      kind: kind.name,
      encodeMs: Math.round(encodeMs),
      firstMs: Math.round(median(figures.first)),
      firstRatio: ratio(figures.first),
      // CPU time of the first correction against the encode's, every thread counted.
      firstCpuRatio: round2(median(figures.firstCpu) / median(figures.encodeCpu)),
      editorMs: Math.round(median(figures.editor)),
      editorRatio: ratio(figures.editor),
      afterRunMs: Math.round(median(figures.afterRun)),
      afterRunRatio: ratio(figures.afterRun),
      nextMs: Math.round(median(figures.next)),
      nextRatio: ratio(figures.next),
      ...Object.fromEntries(Object.entries(stages).map(([name, values]) => [`${name}Ms`, Math.round(median(values))])),
      neutralExact: exact,
    })
  }
  console.table(rows)
  const result = {
    megapixels: Math.round(pixels / 1e5) / 10,
    uploadBytes: upload.byteLength,
    keptBytes,
    keptBytesPerMegapixel: Math.round(keptBytes / (pixels / 1e6)),
    keepMs: Math.round(keepMs),
    target: 1.3,
    rounds,
    // The machine's load at the end (1, 5, 15 minutes): the ratios are the figures, the milliseconds are the weather.
    loadAverage: os.loadavg().map((n) => Math.round(n * 10) / 10),
    kinds: rows,
  }
  return result
}

runAsScript(import.meta.url, () => benchCorrections(Number(process.argv[2] ?? 3)))
