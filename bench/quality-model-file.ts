// The quality bench's `--model-file PATH` (docs/decisions/160): a background model read from
// anywhere (a scratch folder, never the repository) is recognised by its signature, described for
// the remover (pre-processing and output decoding), and put in the slot of the manifest's model it
// stands for, so that removeBackground runs it on the quality tier's real path beside U²-Netp. The
// router fixture on white is scored with and without refinement, to show its halo.
//   npm run bench -- quality --count 20 --model-file /tmp/isnet-ref/isnet-medium.onnx
//   npm run bench -- quality --model-file FILE --model-id isnet-general-use   (a manifest description, by name)
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ort from 'onnxruntime-node'
import sharp from 'sharp'
import { resetConfigForTests } from '../app/config.server'
import type { RgbaImage } from '../app/features/tools/image'
import type { MatteRefinementLevel } from '../app/features/tools/models/matte.server'
import { modelEntry } from '../app/features/tools/models/manifest'
import { modelPath, releaseModels } from '../app/features/tools/models/registry.server'
import { ISNET, SEGMENTERS, U2NETP, type Segmenter } from '../app/features/tools/models/segmenters.server'
import { describeTensor, sessionSignature, signatureProblems, type ActualTensor, type FileSignature } from '../app/features/tools/models/verify.server'
import { edgeBand, scoreCutout } from './quality-metrics'
import { PHOTOS } from './support'

export class ModelFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ModelFileError'
  }
}

const tensor = (name: string, shape: number[]): ActualTensor => ({ name, type: 'float32', shape })

/**
 * IMG.LY's ISNet (`/models/medium` of @imgly/background-removal-data 1.4.5, AGPL-3.0: a local
 * benchmark reference only, never committed, shipped or fetched): one input, the matte first, then
 * its five side outputs and six decoder features, as onnxruntime-node 1.30 lists them.
 */
export const IMGLY_ISNET_SIGNATURE: FileSignature = {
  inputs: [tensor('input', [1, 3, 1024, 1024])],
  outputs: [
    tensor('output', [1, 1, 1024, 1024]),
    ...['1890', '1891', '1892', '1893', '1894'].map((name) => tensor(name, [1, 1, 1024, 1024])),
    tensor('input.1252', [1, 64, 512, 512]),
    tensor('input.1088', [1, 64, 256, 256]),
    tensor('input.948', [1, 128, 128, 128]),
    tensor('input.832', [1, 256, 64, 64]),
    tensor('input.740', [1, 512, 32, 32]),
    tensor('input.656', [1, 512, 16, 16]),
  ],
}

/**
 * The IMG.LY weights as their own library feeds and reads them: px/256 − 0.5 (its tensorHWCtoBCHW,
 * mean 128, std 256), and the output, which ends in a sigmoid, taken as alpha. In ISNet
 * general-use's slot: the same 1024² input, so the remover runs it where `model=quality` would.
 */
export const IMGLY_ISNET: Segmenter = {
  ...ISNET,
  name: 'ISNet (IMG.LY reference weights)',
  normalise: () => ({ scale: [1 / 256, 1 / 256, 1 / 256], offset: [-0.5, -0.5, -0.5] }),
  output: 'alpha',
}

function sameSignature(a: FileSignature, b: FileSignature): boolean {
  const same = (x: readonly ActualTensor[], y: readonly ActualTensor[]) => x.length === y.length && x.every((t, i) => describeTensor(t) === describeTensor(y[i]))
  return same(a.inputs, b.inputs) && same(a.outputs, b.outputs)
}

/** One line for a signature: its first input and first output, and how many outputs there are. */
export function describeSignature(signature: FileSignature): string {
  const input = signature.inputs[0] ? describeTensor(signature.inputs[0]) : 'no input'
  const output = signature.outputs[0] ? describeTensor(signature.outputs[0]) : 'no output'
  const more = signature.outputs.length > 1 ? ` (+${signature.outputs.length - 1} more outputs)` : ''
  return `${input} → ${output}${more}`
}

/**
 * How closely a signature fits a manifest entry it matches: per dimension of the first input and
 * output, 2 when both are the same number or both symbolic, 1 when one side is symbolic. A fixed
 * 1024² file fits ISNet's fixed 1024² better than MODNet's any-size signature.
 */
function closeness(signature: FileSignature, segmenter: Segmenter): number {
  const entry = modelEntry(segmenter.id)
  const fit = (want: ActualTensor | undefined, got: ActualTensor | undefined) =>
    (want?.shape ?? []).reduce<number>((sum, dim, i) => sum + (typeof dim === typeof got?.shape?.[i] ? 2 : 1), 0)
  return fit(entry.inputs[0], signature.inputs[0]) + fit(entry.outputs[0], signature.outputs[0])
}

const BACKGROUND_IDS = SEGMENTERS.map((s) => s.id)

/**
 * The description the remover runs a model file with, from its signature: the IMG.LY reference when
 * it is that file (unless `modelId` asks for a manifest description), else the background model of
 * the manifest whose signature it fits best. A signature that fits none, or several equally well
 * (ISNet's and BiRefNet-lite's are the same), is refused with what to do.
 */
export function recogniseModelFile(signature: FileSignature, modelId?: string): Segmenter {
  const seen = describeSignature(signature)
  if (modelId !== undefined) {
    const named = SEGMENTERS.find((s) => s.id === modelId)
    if (!named) throw new ModelFileError(`--model-id ${modelId}: not a background model; choose one of ${BACKGROUND_IDS.join(', ')}.`)
    const problems = signatureProblems(modelEntry(named.id), signature)
    if (problems.length) throw new ModelFileError(`--model-id ${modelId}: the file (${seen}) does not fit ${named.name}'s signature: ${problems.join('; ')}.`)
    return named
  }
  if (sameSignature(signature, IMGLY_ISNET_SIGNATURE)) return IMGLY_ISNET
  const fitting = SEGMENTERS.filter((s) => signatureProblems(modelEntry(s.id), signature).length === 0)
  if (fitting.length === 0) {
    throw new ModelFileError(`Unknown model signature ${seen}: it fits no background model of models/manifest.json (${BACKGROUND_IDS.join(', ')}) nor IMG.LY's ISNet reference.`)
  }
  const best = Math.max(...fitting.map((s) => closeness(signature, s)))
  const closest = fitting.filter((s) => closeness(signature, s) === best)
  if (closest.length > 1) {
    throw new ModelFileError(
      `The file's signature (${seen}) fits ${closest.map((s) => s.name).join(' and ')} alike: say which with ${closest.map((s) => `--model-id ${s.id}`).join(' or ')}.`,
    )
  }
  return closest[0]
}

/** The file's signature, read by opening it in onnxruntime (on this thread: the bench only). */
export async function readModelSignature(file: string): Promise<FileSignature> {
  if (!existsSync(file)) throw new ModelFileError(`--model-file ${file}: no such file.`)
  let session: ort.InferenceSession
  try {
    session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1, graphOptimizationLevel: 'disabled' })
  } catch (error) {
    throw new ModelFileError(`--model-file ${file}: onnxruntime cannot load it: ${(error as Error).message.split('\n')[0]}`)
  }
  const signature = sessionSignature(session)
  await session.release()
  return signature
}

export interface ModelFileUnderTest {
  /** U²-Netp, then the file's description. */
  segmenters: Segmenter[]
  /** Puts MODELS_DIR back, closes the file's session and removes the scratch models folder (its links only). */
  restore(): Promise<void>
}

/**
 * Recognises the file and puts it in its slot: a scratch models folder holding a link to it under the
 * manifest's file name of that slot, and a link to the installed U²-Netp, becomes MODELS_DIR, so the
 * remover's registry opens it as it would an installed model. Nothing is copied into the repository.
 */
export async function useModelFile(file: string, modelId?: string): Promise<ModelFileUnderTest> {
  const absolute = path.resolve(file)
  const segmenter = recogniseModelFile(await readModelSignature(absolute), modelId)
  if (segmenter.id === U2NETP.id) throw new ModelFileError(`--model-file ${file}: it is a U²-Netp, which the bench runs already; give a model to compare with it.`)
  const u2netp = modelPath(U2NETP.id)
  if (!existsSync(u2netp)) throw new ModelFileError(`U²-Netp (${u2netp}) is not installed: run \`npm run models\` first.`)
  const folder = mkdtempSync(path.join(os.tmpdir(), 'facet-quality-model-'))
  symlinkSync(u2netp, path.join(folder, modelEntry(U2NETP.id).file))
  symlinkSync(absolute, path.join(folder, modelEntry(segmenter.id).file))
  const before = process.env.MODELS_DIR
  process.env.MODELS_DIR = folder
  resetConfigForTests()
  console.error(`  --model-file ${file}: ${segmenter.name}, in ${segmenter.id}'s slot`)
  return {
    segmenters: [U2NETP, segmenter],
    async restore() {
      if (before === undefined) delete process.env.MODELS_DIR
      else process.env.MODELS_DIR = before
      resetConfigForTests()
      await releaseModels()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** How far outside the router's true outline a kept pixel counts as halo. */
export const HALO_REACH = 8

/**
 * The halo: alpha the cutout keeps just outside the object, where the truth is fully transparent
 * (within HALO_REACH px of its edge). On a white backdrop it shows as a white rim.
 */
export function haloOf(truth: Uint8Array, predicted: Uint8Array, width: number, height: number): { meanAlpha: number; pixels: number } {
  const band = edgeBand(truth, width, height, HALO_REACH)
  let sum = 0
  let n = 0
  let pixels = 0
  for (let p = 0; p < band.length; p++) {
    if (!band[p] || truth[p] !== 0) continue
    sum += predicted[p]
    n++
    if (predicted[p] >= 128) pixels++
  }
  return { meanAlpha: n ? sum / 255 / n : Number.NaN, pixels }
}

/**
 * The router's framings on white: as the fixture is (its antennas touch the top edge), and with a
 * margin of a fifth of its size all round.
 */
const ROUTER_MARGINS = [0, 0.2]

/** The router fixture (its exact alpha) on white, with a margin of `marginShare` of its size. */
async function routerOnWhite(marginShare: number) {
  const { data, info } = await sharp(path.join(PHOTOS, 'product-router-alpha-groundtruth.png')).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const margin = Math.round(Math.max(info.width, info.height) * marginShare)
  const width = info.width + 2 * margin
  const height = info.height + 2 * margin
  const image = Buffer.alloc(width * height * 4, 255)
  const truthAlpha = new Uint8Array(width * height)
  const truthRgb = new Uint8Array(width * height * 3)
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const o = (y * info.width + x) * 4
      const p = (y + margin) * width + x + margin
      const a = data[o + 3] / 255
      for (let k = 0; k < 3; k++) {
        image[p * 4 + k] = Math.round(data[o + k] * a + 255 * (1 - a))
        if (a > 0) truthRgb[p * 3 + k] = data[o + k]
      }
      truthAlpha[p] = data[o + 3]
    }
  }
  return { image: { data: image, width, height }, truthAlpha, truthRgb }
}

/** Where the router's cutouts are saved to look at (bench/results is not committed). */
const ROUTER_PICTURES = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), 'results/router-halo')

/**
 * The router on white, in each framing: each model's cutout without refinement ('model') and at each
 * other level, scored, with its halo; each cutout is saved over grey in ROUTER_PICTURES. IMG.LY's
 * weights are also run with the studio's own ISNet description (the same file, the same slot), to
 * check that path on real weights.
 */
export async function routerHalo(
  segmenters: readonly Segmenter[],
  levels: readonly MatteRefinementLevel[],
  cutoutOf: (image: RgbaImage, refinement: MatteRefinementLevel, segmenter: Segmenter) => Promise<{ alpha: Uint8Array; rgb: Uint8Array }>,
): Promise<object[]> {
  mkdirSync(ROUTER_PICTURES, { recursive: true })
  const described = segmenters.flatMap((s) => (s === IMGLY_ISNET ? [s, ISNET] : [s]))
  const rows = []
  for (const marginShare of ROUTER_MARGINS) {
    const scene = await routerOnWhite(marginShare)
    const { width, height } = scene.image
    console.error(`\n  The router on white (${width}×${height}, margin ${marginShare}), halo within ${HALO_REACH} px outside its true edge`)
    console.error('  model                              refinement   IoU     MAE      edgeMAE  halo α  halo px')
    for (const segmenter of described) {
      for (const refinement of levels) {
        const cutout = await cutoutOf(scene.image, refinement, segmenter)
        const scores = scoreCutout({ alpha: scene.truthAlpha, rgb: scene.truthRgb }, cutout, width, height)
        const halo = haloOf(scene.truthAlpha, cutout.alpha, width, height)
        const row = { model: segmenter.name, decoding: segmenter.output, marginShare, refinement, iou: scores.iou, mae: scores.mae, edgeMae: scores.edgeMae, haloMeanAlpha: halo.meanAlpha, haloPixels: halo.pixels }
        rows.push(row)
        console.error(
          `  ${segmenter.name.padEnd(34)} ${refinement.padEnd(11)}  ${scores.iou.toFixed(4)}  ${scores.mae.toFixed(5)}  ${scores.edgeMae.toFixed(5)}  ${halo.meanAlpha.toFixed(3)}  ${String(halo.pixels).padStart(6)}`,
        )
        // The cutout over grey, to look at.
        const slug = segmenter.name.normalize('NFKD').replace(/\W+/g, '-').replace(/^-|-$/g, '')
        const over = Buffer.alloc(width * height * 3)
        for (let p = 0; p < cutout.alpha.length; p++) {
          for (let k = 0; k < 3; k++) over[p * 3 + k] = Math.round((cutout.rgb[p * 3 + k] * cutout.alpha[p] + 128 * (255 - cutout.alpha[p])) / 255)
        }
        await sharp(over, { raw: { width, height, channels: 3 } }).png().toFile(path.join(ROUTER_PICTURES, `${slug}-margin-${marginShare}-${refinement}.png`))
      }
    }
  }
  return rows
}
