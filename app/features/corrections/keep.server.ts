// What a run keeps, apart from its output, so that a correction can re-render it without a model
// (decision 157): packed here in the run (the deflating is the run's time, not the transaction's),
// sealed and stored with the result by the outcome (store.server.ts).
import zlib from 'node:zlib'
import { promisify } from 'node:util'
import type { RgbaImage } from '~/features/tools/image'
import type { BackgroundRemoverOptions } from '~/features/tools/runners/background-remover.server'
import type { KeptForCorrection } from '~/features/jobs/runner'
import { toRuns } from './matte-runs'
import { pack } from './pack.server'
import type { OpenedByRun } from './render.server'
import type { CutoutSourceMeta, FacesSourceMeta } from './source-meta'
import type { FaceBox, MattePart } from './types'

const deflate = promisify(zlib.deflate)
/** zlib level 1: a matte is mostly runs of 0 and 255, and level 1 takes them at a fraction of the default's time. */
const DEFLATE = { level: 1 } as const

/** The cutout's source as packed: enough to decode the photo again and rebuild every output. */

export interface CutoutFacts {
  width: number
  height: number
  /**
   * Found when the result is first opened for correction, not in the run: they need the model's
   * matte enlarged to full size, most of a second at 12 MP (decision 157). Null until then.
   */
  parts: MattePart[] | null
}

export interface FacesFacts {
  width: number
  height: number
  detectedFaces: FaceBox[]
  blurRadius: number
}

/**
 * The pixels whose colour the refinement changed (unmixed from the background), as their indices
 * (uint32) and their new RGB: only the edge band changes, so this is a small share of the photo.
 * The alpha byte is the photo's own in both, so a pixel is compared as one 32-bit word. `photoRgb`
 * is what the photo had there (kept in memory only, for a correction in the run's process).
 */
export function colourChanges(photo: Buffer, colours: Buffer): { at: Buffer; rgb: Buffer; photoRgb: Buffer } {
  const at: number[] = []
  const rgb: number[] = []
  const photoRgb: number[] = []
  const aligned = photo.byteOffset % 4 === 0 && colours.byteOffset % 4 === 0
  const before = aligned ? new Uint32Array(photo.buffer, photo.byteOffset, photo.length >>> 2) : null
  const after = aligned ? new Uint32Array(colours.buffer, colours.byteOffset, colours.length >>> 2) : null
  const pixels = photo.length >>> 2
  for (let p = 0; p < pixels; p++) {
    const i = p * 4
    if (before && after ? before[p] === after[p] : photo.readUInt32LE(i) === colours.readUInt32LE(i)) continue
    at.push(p)
    rgb.push(colours[i], colours[i + 1], colours[i + 2])
    photoRgb.push(photo[i], photo[i + 1], photo[i + 2])
  }
  return { at: Buffer.from(Uint32Array.from(at).buffer), rgb: Buffer.from(rgb), photoRgb: Buffer.from(photoRgb) }
}

/**
 * The remover's run: the upload, the background image, the model's matte, the refined one, the
 * unmixed colours, the parts. Besides the packed source, what a correction in this process would
 * otherwise decode and inflate again, in memory (`opened`, decision 169): the run's own buffers,
 * read only from here on (the run has finished with them).
 */
export async function keepCutout(input: {
  upload: Buffer
  backgroundImage: Buffer | null
  options: BackgroundRemoverOptions
  image: RgbaImage
  modelMatte: { data: Uint8Array; width: number; height: number }
  alpha: Uint8Array
  colours: Buffer
}): Promise<KeptForCorrection> {
  const { image, modelMatte } = input
  const changes = colourChanges(image.data, input.colours)
  // The refined matte as its runs and the edge's bytes between them: a correction opens it with a
  // few fills and copies instead of inflating 12 MB at 12 MP (decision 182).
  const matte = toRuns(input.alpha)
  const [alphaRuns, alphaLiterals, changedAt, changedRgb] = await Promise.all([
    deflate(matte.runs, DEFLATE),
    deflate(matte.literals, DEFLATE),
    deflate(changes.at, DEFLATE),
    deflate(changes.rgb, DEFLATE),
  ])
  const meta: CutoutSourceMeta = {
    kind: 'cutout',
    width: image.width,
    height: image.height,
    options: { ...input.options },
    modelWidth: modelMatte.width,
    modelHeight: modelMatte.height,
  }
  const facts: CutoutFacts = { width: image.width, height: image.height, parts: null }
  const model = Buffer.from(modelMatte.data)
  const source = pack(meta, {
    upload: input.upload,
    background: input.backgroundImage,
    model,
    alphaRuns,
    alphaLiterals,
    changedAt,
    changedRgb,
  })
  const opened: OpenedByRun = {
    source: {
      meta,
      upload: input.upload,
      backgroundImage: input.backgroundImage,
      modelMatte: model,
      alpha: input.alpha,
      changedAt: new Uint32Array(changes.at.buffer, changes.at.byteOffset, changes.at.byteLength >>> 2),
      changedRgb: changes.rgb,
    },
    colours: { unmixed: { data: input.colours, width: image.width, height: image.height }, photoRgb: changes.photoRgb },
  }
  return { kind: 'cutout', facts, source, opened }
}

/** The blurrer's run: the upload, the radius and format, the boxes the detector found (in the result's pixels). */
export function keepFaces(input: { upload: Buffer; image: RgbaImage; blur: number; format: string | null; faces: FaceBox[] }): KeptForCorrection {
  const meta: FacesSourceMeta = { kind: 'faces', width: input.image.width, height: input.image.height, blur: input.blur, format: input.format }
  const facts: FacesFacts = { width: input.image.width, height: input.image.height, detectedFaces: input.faces, blurRadius: input.blur }
  return { kind: 'faces', facts, source: pack(meta, { upload: input.upload }) }
}
