// Face restorer. Like GFPGAN's own default (`--upscale 2`), the portrait comes back at 2× its size
// (within the enhancer's 16 MP output cap): the picture is enlarged (Real-ESRGAN ×4 brought down to
// 2×, or a plain resize for a large picture), then each face found by YuNet is restored on top.
// With the optional GFPGAN model, each face is aligned to the FFHQ 512 template by its five
// landmarks, restored, and pasted back through a feathered mask. Without it, 'Fallback detail mode':
// each face crop goes through Real-ESRGAN at a stronger denoise than the background and is blended
// back through a feathered ellipse. A picture without a face comes back unchanged (facesFound 0):
// there is nothing to restore (docs/decisions/012-face-restorer-and-blurrer.md, 019-face-restorer-at-2x.md).
import { detectFaces, type Face, type Point } from './face-detector.server'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { MODEL_INPUT_BUDGET, OUTPUT_CAP_PIXELS } from './image-enhancer.server'
import { acquireSrModel, DEFAULT_DENOISE, type SrModelLease } from './models/denoise-models.server'
import { assertRgbaImage, blendThroughEllipse, cropRaw, encodePng, isOpaque, rawOf, resizeRaw, smoothstep, withEnlargedAlpha, type RawImage } from './models/pixels.server'
import { gfpganAvailable, GFPGAN_MODEL, runModel } from './models/registry.server'
import { upscale4x } from './models/super-resolution.server'

const FACE_SIZE = 512
/** FFHQ landmark positions in GFPGAN's 512×512 input: eyes, nose tip, mouth corners (image left first). */
const FFHQ_TEMPLATE: Point[] = [
  [192.98138, 239.94708],
  [318.90277, 240.1936],
  [256.63416, 314.01935],
  [201.26117, 371.41043],
  [313.08905, 371.15118],
]
/** Width (px, in the 512 template) of the feathered border of the pasted face. */
const PASTE_FEATHER = 56
/** The output's scale, as GFPGAN's `--upscale 2`; 1 when 2× would pass the output cap. */
export const RESTORE_SCALE = 2
/** Fallback: a face crop is this many times the face box, and the model sees at most this many pixels of it. */
const CROP_SCALE = 1.8
const CROP_MODEL_PIXELS = 512 * 512
/** Below this many model pixels left in the budget, the remaining (smallest) faces are left as enlarged. */
const MIN_CROP_MODEL_PIXELS = 64 * 64
/**
 * Model input per picture, background and faces together: the enhancer's budget (about 15 s on 2 idle
 * cores), so a crowd or a large frame cannot run for minutes. The background goes through the model
 * only up to three quarters of it, so the faces always keep room (one 512² crop).
 */
const MODEL_BUDGET_PIXELS = MODEL_INPUT_BUDGET
export const BACKGROUND_MODEL_PIXELS = MODEL_BUDGET_PIXELS * 0.75
/**
 * Denoise strengths (decision 014's scale): the background keeps its texture (the weak-denoise model);
 * faces get the enhancer's default blend, which clears JPEG blocks from skin without the full model's
 * plastic look (decision 019 has the figures).
 */
export const BACKGROUND_DENOISE = 0
export const FACE_DENOISE = DEFAULT_DENOISE

export type BackgroundUpscale = 'model' | 'resize' | 'none'

export interface RestorationPlan {
  scale: number
  outputWidth: number
  outputHeight: number
  /**
   * How the picture around the faces is enlarged: by the model (up to BACKGROUND_MODEL_PIXELS), by a
   * Lanczos resize (larger pictures: the cheaper way, said in the note), or not at all (scale 1).
   */
  background: BackgroundUpscale
}

export function planRestoration(width: number, height: number): RestorationPlan {
  const pixels = width * height
  const scale = pixels * RESTORE_SCALE * RESTORE_SCALE <= OUTPUT_CAP_PIXELS ? RESTORE_SCALE : 1
  const background = scale === 1 ? 'none' : pixels <= BACKGROUND_MODEL_PIXELS ? 'model' : 'resize'
  return { scale, outputWidth: width * scale, outputHeight: height * scale, background }
}

/** What the answer says about the engine that ran (X-Facet-Note, the run's details). */
export function engineNote(gfpgan: boolean, plan: RestorationPlan): string {
  const faces = gfpgan ? 'Faces restored by GFPGAN' : 'Fallback detail mode (GFPGAN is not installed): faces enhanced by Real-ESRGAN x4v3'
  if (plan.background === 'model') return `${faces}; the rest of the picture enlarged 2× by Real-ESRGAN x4v3.`
  if (plan.background === 'resize') {
    return `${faces}; the rest of the picture enlarged 2× by a plain Lanczos resize (pictures over ${BACKGROUND_MODEL_PIXELS / 1e6} megapixels skip the model for the background, to keep the run short).`
  }
  return `${faces}; the picture keeps its size (at 2× it would pass the ${OUTPUT_CAP_PIXELS / 1e6} megapixel output limit).`
}

/** Similarity transform (rotation, uniform scale, shift) mapping `from` onto `to` in the least-squares sense. */
export function similarityTransform(from: Point[], to: Point[]): { a: number; b: number; tx: number; ty: number } {
  const n = from.length
  const mean = (pts: Point[], k: 0 | 1) => pts.reduce((s, p) => s + p[k], 0) / n
  const [fx, fy, tx0, ty0] = [mean(from, 0), mean(from, 1), mean(to, 0), mean(to, 1)]
  let dot = 0
  let cross = 0
  let norm = 0
  for (let i = 0; i < n; i++) {
    const px = from[i][0] - fx
    const py = from[i][1] - fy
    const qx = to[i][0] - tx0
    const qy = to[i][1] - ty0
    dot += px * qx + py * qy
    cross += px * qy - py * qx
    norm += px * px + py * py
  }
  const a = dot / norm
  const b = cross / norm
  return { a, b, tx: tx0 - (a * fx - b * fy), ty: ty0 - (b * fx + a * fy) }
}

function sampleBilinear(image: RawImage, x: number, y: number, out: number[]): void {
  const c = image.channels
  const x0 = Math.max(0, Math.min(image.width - 1, Math.floor(x)))
  const y0 = Math.max(0, Math.min(image.height - 1, Math.floor(y)))
  const x1 = Math.min(image.width - 1, x0 + 1)
  const y1 = Math.min(image.height - 1, y0 + 1)
  const fx = Math.max(0, Math.min(1, x - x0))
  const fy = Math.max(0, Math.min(1, y - y0))
  for (let k = 0; k < 3; k++) {
    const p00 = image.data[(y0 * image.width + x0) * c + k]
    const p10 = image.data[(y0 * image.width + x1) * c + k]
    const p01 = image.data[(y1 * image.width + x0) * c + k]
    const p11 = image.data[(y1 * image.width + x1) * c + k]
    out[k] = (p00 * (1 - fx) + p10 * fx) * (1 - fy) + (p01 * (1 - fx) + p11 * fx) * fy
  }
}

/** GFPGAN on one face: aligned from the source picture, pasted into the output at its scale (×1 or ×2). */
async function restoreWithGfpgan(source: RgbaImage, output: RawImage, scale: number, face: Face): Promise<number> {
  const picture = rawOf(source)
  const { a, b, tx, ty } = similarityTransform(face.landmarks, FFHQ_TEMPLATE)
  const det = a * a + b * b
  // Warp: each template pixel looks up its source in the picture (inverse transform).
  const plane = FACE_SIZE * FACE_SIZE
  const input = new Float32Array(3 * plane)
  const rgb = [0, 0, 0]
  for (let v = 0; v < FACE_SIZE; v++) {
    for (let u = 0; u < FACE_SIZE; u++) {
      const qx = u + 0.5 - tx
      const qy = v + 0.5 - ty
      sampleBilinear(picture, (a * qx + b * qy) / det - 0.5, (-b * qx + a * qy) / det - 0.5, rgb)
      const j = v * FACE_SIZE + u
      for (let k = 0; k < 3; k++) input[k * plane + j] = rgb[k] / 127.5 - 1
    }
  }
  const { output: restoredTensor, ms } = await runModel(GFPGAN_MODEL, input, [1, 3, FACE_SIZE, FACE_SIZE])
  const values = restoredTensor.data as Float32Array
  const restored: RawImage = { data: Buffer.allocUnsafe(plane * 3), width: FACE_SIZE, height: FACE_SIZE, channels: 3 }
  for (let j = 0; j < plane; j++) {
    for (let k = 0; k < 3; k++) {
      const value = (values[k * plane + j] + 1) * 127.5
      restored.data[j * 3 + k] = value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value)
    }
  }
  // Paste back over the template square's footprint in the output, feathered at its border. An output
  // pixel (x, y) is the picture's point ((x + 0.5) / scale, (y + 0.5) / scale).
  const corners = [[0, 0], [FACE_SIZE, 0], [0, FACE_SIZE], [FACE_SIZE, FACE_SIZE]].map(([u, v]) => {
    const qx = u - tx
    const qy = v - ty
    return [((a * qx + b * qy) / det) * scale, ((-b * qx + a * qy) / det) * scale]
  })
  const left = Math.max(0, Math.floor(Math.min(...corners.map((p) => p[0]))))
  const right = Math.min(output.width, Math.ceil(Math.max(...corners.map((p) => p[0]))))
  const top = Math.max(0, Math.floor(Math.min(...corners.map((p) => p[1]))))
  const bottom = Math.min(output.height, Math.ceil(Math.max(...corners.map((p) => p[1]))))
  const c = output.channels
  for (let y = top; y < bottom; y++) {
    const py = (y + 0.5) / scale
    for (let x = left; x < right; x++) {
      const px = (x + 0.5) / scale
      const u = a * px - b * py + tx
      const v = b * px + a * py + ty
      const edge = Math.min(u, v, FACE_SIZE - u, FACE_SIZE - v)
      if (edge <= 0) continue
      const w = smoothstep(0, PASTE_FEATHER, edge)
      sampleBilinear(restored, u - 0.5, v - 0.5, rgb)
      const i = (y * output.width + x) * c
      for (let k = 0; k < 3; k++) output.data[i + k] = Math.round(output.data[i + k] * (1 - w) + rgb[k] * w)
    }
  }
  return ms
}

function rgbOf(image: RawImage): RawImage {
  if (image.channels === 3) return image
  const pixels = image.width * image.height
  const rgb = Buffer.allocUnsafe(pixels * 3)
  for (let p = 0; p < pixels; p++) image.data.copy(rgb, p * 3, p * image.channels, p * image.channels + 3)
  return { data: rgb, width: image.width, height: image.height, channels: 3 }
}

/** Fallback: the face's crop from the picture through the model, brought to the output's scale and blended in. */
async function restoreWithDetailModel(
  source: RgbaImage,
  output: RawImage,
  scale: number,
  face: Face,
  maxModelPixels: number,
  sr: SrModelLease,
  signal?: AbortSignal,
): Promise<{ ms: number; pixels: number }> {
  const side = Math.max(face.width, face.height) * CROP_SCALE
  const cx = face.x + face.width / 2
  const cy = face.y + face.height / 2
  const left = Math.max(0, Math.floor(cx - side / 2))
  const top = Math.max(0, Math.floor(cy - side / 2))
  const right = Math.min(source.width, Math.ceil(cx + side / 2))
  const bottom = Math.min(source.height, Math.ceil(cy + side / 2))
  const width = right - left
  const height = bottom - top
  if (width < 4 || height < 4) return { ms: 0, pixels: 0 }
  let rgb = rgbOf(cropRaw(rawOf(source), left, top, width, height))
  const reduce = Math.min(1, Math.sqrt(maxModelPixels / (width * height)))
  if (reduce < 1) rgb = await resizeRaw(rgb, Math.round(width * reduce), Math.round(height * reduce), 'lanczos3')
  const upscaled = await upscale4x(rgb, { signal, model: sr.model })
  const detailed = await resizeRaw(upscaled.image, width * scale, height * scale, 'lanczos3')
  const ellipse = { cx: cx * scale, cy: cy * scale, rx: face.width * 0.7 * scale, ry: face.height * 0.8 * scale }
  blendThroughEllipse(output, detailed, left * scale, top * scale, ellipse, 0.6)
  return { ms: upscaled.modelMs, pixels: rgb.width * rgb.height }
}

/** The picture at the output's size, without its faces restored yet (RGB). */
async function enlargeBackground(
  image: RgbaImage,
  plan: RestorationPlan,
  options: { signal?: AbortSignal; onTile?: (done: number, total: number) => void },
): Promise<{ image: RawImage; modelMs: number; modelPixels: number }> {
  const rgb = rgbOf(rawOf(image))
  if (plan.background === 'none') return { image: { ...rgb, data: Buffer.from(rgb.data) }, modelMs: 0, modelPixels: 0 }
  if (plan.background === 'resize') {
    return { image: await resizeRaw(rgb, plan.outputWidth, plan.outputHeight, 'lanczos3'), modelMs: 0, modelPixels: 0 }
  }
  const sr = await acquireSrModel(BACKGROUND_DENOISE)
  try {
    const upscaled = await upscale4x(rgb, { signal: options.signal, model: sr.model, onTile: options.onTile })
    const enlarged = await resizeRaw(upscaled.image, plan.outputWidth, plan.outputHeight, 'lanczos3')
    return { image: enlarged, modelMs: upscaled.modelMs, modelPixels: image.width * image.height }
  } finally {
    sr.done()
  }
}

/** Detection, the background enlarged (tile by tile when the model does it), each face, the PNG. */
export type RestorePhase = 'detected' | 'background' | 'faces' | 'encoded'

export async function restoreFaces(
  image: RgbaImage,
  options: { signal?: AbortSignal; progress?: PhaseProgress<RestorePhase> } = {},
): Promise<ToolOutput & { gfpganAvailable: boolean; facesFound: number; scale: number; note: string | null }> {
  assertRgbaImage(image)
  const progress = options.progress ?? (() => {})
  const useGfpgan = gfpganAvailable()
  const detection = await detectFaces(image)
  progress('detected', 1)
  const found = detection.faces.length
  if (found === 0) {
    // Nothing to restore, and the run is not charged: no enlargement either (the enhancer is for that).
    const bytes = await encodePng(rawOf(image))
    progress('encoded', 1)
    const unchanged = { bytes, contentType: 'image/png' as const, width: image.width, height: image.height, modelMs: detection.modelMs }
    return { ...unchanged, gfpganAvailable: useGfpgan, facesFound: 0, scale: 1, note: null }
  }

  const plan = planRestoration(image.width, image.height)
  options.signal?.throwIfAborted()
  const background = await enlargeBackground(image, plan, {
    signal: options.signal,
    onTile: (done, total) => progress('background', done / total),
  })
  progress('background', 1)
  const output = background.image
  let modelMs = detection.modelMs + background.modelMs

  // Largest faces first, so a budget cut in a crowd drops the faces that matter least.
  const faces = [...detection.faces].sort((p, q) => q.width * q.height - p.width * p.height)
  const sr = useGfpgan ? null : await acquireSrModel(FACE_DENOISE)
  try {
    let spent = background.modelPixels
    let facesDone = 0
    for (const face of faces) {
      progress('faces', facesDone++ / faces.length)
      options.signal?.throwIfAborted()
      if (!sr) {
        modelMs += await restoreWithGfpgan(image, output, plan.scale, face)
      } else {
        const allowed = Math.min(CROP_MODEL_PIXELS, MODEL_BUDGET_PIXELS - spent)
        if (allowed < MIN_CROP_MODEL_PIXELS) break
        const { ms, pixels } = await restoreWithDetailModel(image, output, plan.scale, face, allowed, sr, options.signal)
        modelMs += ms
        spent += pixels
      }
    }
  } finally {
    sr?.done()
  }
  progress('faces', 1)
  const bytes = await encodePng(isOpaque(image) ? output : await withEnlargedAlpha(output, image), { keepAlpha: true })
  progress('encoded', 1)
  return {
    bytes,
    contentType: 'image/png',
    width: plan.outputWidth,
    height: plan.outputHeight,
    modelMs,
    gfpganAvailable: useGfpgan,
    facesFound: found,
    scale: plan.scale,
    note: engineNote(useGfpgan, plan),
  }
}
