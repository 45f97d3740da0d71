// The background remover's models, one entry each, with the pre- and post-processing of its
// reference implementation (rembg's sessions for U²-Netp, ISNet and BiRefNet; MODNet's own ONNX
// demo), and the `model` choice a request makes: which installed model it gets, and what the
// caller is told when the model it asked for is not here (docs/decisions/100).
import { MODEL_NAMES, type ModelChoice } from './model-choices'
import { isModelUsable } from './registry.server'

const IMAGENET_MEAN = [0.485, 0.456, 0.406] as const
const IMAGENET_STD = [0.229, 0.224, 0.225] as const

type Triple = [number, number, number]

/** How the network's output becomes alpha: rembg min-max normalises (BiRefNet after a sigmoid); MODNet answers alpha. */
export type MatteOutput = 'min-max' | 'sigmoid-min-max' | 'alpha'

export interface Segmenter {
  /** The model's id in models/manifest.json. */
  id: string
  /** The name the answer and the screens use. */
  name: string
  /** The input side of a square model; MODNet's short side. */
  size: number
  /** The network's input size for a picture (the picture is stretched to it, as the references do). */
  inputSize(width: number, height: number): { width: number; height: number }
  /** Per-channel scale and offset from bytes to the network's input, given the picture's brightest byte. */
  normalise(maxByte: number): { scale: Triple; offset: Triple }
  output: MatteOutput
}

/** rembg's BaseSession.normalize: divide by the picture's brightest byte, then subtract the mean and divide by the std. */
function rembgNormalise(mean: readonly number[], std: readonly number[]): Segmenter['normalise'] {
  return (maxByte) => ({
    scale: [0, 1, 2].map((k) => 1 / (Math.max(1, maxByte) * std[k])) as Triple,
    offset: [0, 1, 2].map((k) => -mean[k] / std[k]) as Triple,
  })
}

const square = (size: number) => () => ({ width: size, height: size })

export const U2NETP: Segmenter = {
  id: 'u2netp',
  name: MODEL_NAMES['u2netp'],
  size: 320,
  inputSize: square(320),
  normalise: rembgNormalise(IMAGENET_MEAN, IMAGENET_STD),
  output: 'min-max',
}

/** rembg's dis_general_use session: mean 0.5, std 1, the output min-max normalised (the graph ends in a sigmoid). */
export const ISNET: Segmenter = {
  id: 'isnet-general-use',
  name: MODEL_NAMES['isnet-general-use'],
  size: 1024,
  inputSize: square(1024),
  normalise: rembgNormalise([0.5, 0.5, 0.5], [1, 1, 1]),
  output: 'min-max',
}

/** rembg's birefnet_general session: ImageNet mean and std, the output is logits (sigmoid, then min-max). */
export const BIREFNET_LITE: Segmenter = {
  id: 'birefnet-lite',
  name: MODEL_NAMES['birefnet-lite'],
  size: 1024,
  inputSize: square(1024),
  normalise: rembgNormalise(IMAGENET_MEAN, IMAGENET_STD),
  output: 'sigmoid-min-max',
}

/** Longest side MODNet is given: keeps a panorama's input (and memory) bounded. */
const MODNET_MAX_SIDE = 2048

/**
 * MODNet's input: the short side at 512, the long side in proportion (at most MODNET_MAX_SIDE), both
 * floored to a multiple of 32 as its ONNX demo does (the network halves the size five times).
 */
export function modnetInputSize(width: number, height: number): { width: number; height: number } {
  const shortSide = 512
  const scale = shortSide / Math.min(width, height)
  const floor32 = (v: number) => Math.max(32, Math.floor(Math.min(MODNET_MAX_SIDE, v) / 32) * 32)
  return { width: floor32(width * scale), height: floor32(height * scale) }
}

/** MODNet's demo: (px/255 − 0.5) / 0.5, the output is the alpha matte itself. */
export const MODNET: Segmenter = {
  id: 'modnet',
  name: MODEL_NAMES['modnet'],
  size: 512,
  inputSize: modnetInputSize,
  normalise: () => ({ scale: [2 / 255, 2 / 255, 2 / 255], offset: [-1, -1, -1] }),
  output: 'alpha',
}

/** Every background model, best general-purpose first: what `auto` and `quality` walk down. */
const QUALITY_ORDER: readonly Segmenter[] = [BIREFNET_LITE, ISNET, U2NETP]
export const SEGMENTERS: readonly Segmenter[] = [...QUALITY_ORDER, MODNET]

/** The choices that land on each model when it is installed (for the models list). */
export const CHOICES_BY_MODEL: Readonly<Record<string, readonly ModelChoice[]>> = {
  [BIREFNET_LITE.id]: ['auto', 'quality'],
  [ISNET.id]: ['auto', 'quality'],
  [U2NETP.id]: ['auto', 'fast'],
  [MODNET.id]: ['portrait'],
}

/** The background models this server can run now (installed, and allowed by their licence), best first. */
export function installedSegmenters(): Segmenter[] {
  return SEGMENTERS.filter((s) => isModelUsable(s.id))
}

export interface ChosenSegmenter {
  segmenter: Segmenter
  /** For X-Facet-Note when the choice could not be honoured as asked. */
  note: string | null
}

function bestInstalled(): Segmenter {
  // U²-Netp is required (npm run models installs it), so the walk always ends on it.
  return QUALITY_ORDER.find((s) => isModelUsable(s.id)) ?? U2NETP
}

/**
 * The model a choice runs on this server. A model that is not installed is replaced by the best
 * one that is, with a note: the run still delivers (a batch does not fail half way), and the
 * answer names the model used (X-Facet-Model), so a client that must have it can check.
 */
export function segmenterFor(choice: ModelChoice = 'auto'): ChosenSegmenter {
  switch (choice) {
    case 'fast':
      return { segmenter: U2NETP, note: null }
    case 'quality': {
      const best = bestInstalled()
      const note = best === U2NETP ? `model=quality: no quality model (${BIREFNET_LITE.name}, ${ISNET.name}) is installed on this server, so ${U2NETP.name} was used.` : null
      return { segmenter: best, note }
    }
    case 'portrait': {
      if (isModelUsable(MODNET.id)) return { segmenter: MODNET, note: null }
      const best = bestInstalled()
      return { segmenter: best, note: `model=portrait: the portrait model (${MODNET.name}) is not installed on this server, so ${best.name} was used.` }
    }
    default:
      return { segmenter: bestInstalled(), note: null }
  }
}

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v))

/** The network's output as a 0..255 matte, the way its reference turns it into a mask. */
export function outputToMatte(values: Float32Array, output: MatteOutput): Buffer {
  const matte = Buffer.allocUnsafe(values.length)
  if (output === 'alpha') {
    for (let i = 0; i < values.length; i++) matte[i] = Math.round(Math.min(1, Math.max(0, values[i])) * 255)
    return matte
  }
  const activated = output === 'sigmoid-min-max' ? values.map(sigmoid) : values
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < activated.length; i++) {
    if (activated[i] < lo) lo = activated[i]
    if (activated[i] > hi) hi = activated[i]
  }
  const range = hi - lo || 1
  for (let i = 0; i < activated.length; i++) matte[i] = Math.round(((activated[i] - lo) / range) * 255)
  return matte
}
