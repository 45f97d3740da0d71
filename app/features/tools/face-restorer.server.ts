// Face restorer. With the optional GFPGAN model installed, each face found by YuNet is aligned to
// the FFHQ 512 template by its five landmarks, restored, and pasted back through a feathered mask.
// Without it, 'Fallback detail mode': each face crop goes through Real-ESRGAN ×4 and back down to
// its size (finer detail, no JPEG blocks), blended back through a feathered ellipse.
// A picture without a face comes back unchanged (facesFound 0): there is nothing to restore
// (docs/decisions/011-face-restorer-modes.md).
import { detectFaces, type Face, type Point } from './face-detector.server'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { assertRgbaImage, blendThroughEllipse, cropRaw, encodePng, rawOf, resizeRaw, smoothstep, type RawImage } from './models/pixels.server'
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
/** Fallback: a face crop is this many times the face box, and the model sees at most this many pixels of it. */
const CROP_SCALE = 1.8
const CROP_MODEL_PIXELS = 256 * 256
/** Fallback: total model pixels per picture, so a crowd cannot run for minutes. */
const FALLBACK_BUDGET_PIXELS = 2_000_000

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

async function restoreWithGfpgan(output: RawImage, face: Face): Promise<number> {
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
      sampleBilinear(output, (a * qx + b * qy) / det - 0.5, (-b * qx + a * qy) / det - 0.5, rgb)
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
  // Paste back over the template square's footprint in the picture, feathered at its border.
  const corners = [[0, 0], [FACE_SIZE, 0], [0, FACE_SIZE], [FACE_SIZE, FACE_SIZE]].map(([u, v]) => {
    const qx = u - tx
    const qy = v - ty
    return [(a * qx + b * qy) / det, (-b * qx + a * qy) / det]
  })
  const left = Math.max(0, Math.floor(Math.min(...corners.map((p) => p[0]))))
  const right = Math.min(output.width, Math.ceil(Math.max(...corners.map((p) => p[0]))))
  const top = Math.max(0, Math.floor(Math.min(...corners.map((p) => p[1]))))
  const bottom = Math.min(output.height, Math.ceil(Math.max(...corners.map((p) => p[1]))))
  const c = output.channels
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const u = a * (x + 0.5) - b * (y + 0.5) + tx
      const v = b * (x + 0.5) + a * (y + 0.5) + ty
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

async function restoreWithDetailModel(output: RawImage, face: Face, signal?: AbortSignal): Promise<{ ms: number; pixels: number }> {
  const side = Math.max(face.width, face.height) * CROP_SCALE
  const cx = face.x + face.width / 2
  const cy = face.y + face.height / 2
  const left = Math.max(0, Math.floor(cx - side / 2))
  const top = Math.max(0, Math.floor(cy - side / 2))
  const right = Math.min(output.width, Math.ceil(cx + side / 2))
  const bottom = Math.min(output.height, Math.ceil(cy + side / 2))
  const width = right - left
  const height = bottom - top
  if (width < 4 || height < 4) return { ms: 0, pixels: 0 }
  const crop = cropRaw(output, left, top, width, height)
  let rgb: RawImage = { data: Buffer.allocUnsafe(width * height * 3), width, height, channels: 3 }
  for (let p = 0; p < width * height; p++) crop.data.copy(rgb.data, p * 3, p * crop.channels, p * crop.channels + 3)
  const reduce = Math.min(1, Math.sqrt(CROP_MODEL_PIXELS / (width * height)))
  if (reduce < 1) rgb = await resizeRaw(rgb, Math.round(width * reduce), Math.round(height * reduce), 'lanczos3')
  const upscaled = await upscale4x(rgb, { signal })
  const detailed = await resizeRaw(upscaled.image, width, height, 'lanczos3')
  blendThroughEllipse(output, detailed, left, top, { cx, cy, rx: face.width * 0.7, ry: face.height * 0.8 }, 0.6)
  return { ms: upscaled.modelMs, pixels: rgb.width * rgb.height }
}

/** Detection done, then each face restored (fraction of the faces), then the PNG encoded. */
export type RestorePhase = 'detected' | 'faces' | 'encoded'

export async function restoreFaces(
  image: RgbaImage,
  options: { signal?: AbortSignal; progress?: PhaseProgress<RestorePhase> } = {},
): Promise<ToolOutput & { gfpganAvailable: boolean; facesFound: number }> {
  assertRgbaImage(image)
  const progress = options.progress ?? (() => {})
  const useGfpgan = gfpganAvailable()
  const detection = await detectFaces(image)
  progress('detected', 1)
  let modelMs = detection.modelMs
  const output: RawImage = { ...rawOf(image), data: Buffer.from(image.data) }
  // Largest faces first, so a budget cut in a crowd drops the faces that matter least.
  const faces = [...detection.faces].sort((p, q) => q.width * q.height - p.width * p.height)
  let spent = 0
  let facesDone = 0
  for (const face of faces) {
    progress('faces', facesDone++ / faces.length)
    options.signal?.throwIfAborted()
    if (useGfpgan) {
      modelMs += await restoreWithGfpgan(output, face)
    } else {
      if (spent >= FALLBACK_BUDGET_PIXELS) break
      const { ms, pixels } = await restoreWithDetailModel(output, face, options.signal)
      modelMs += ms
      spent += pixels
    }
  }
  progress('faces', 1)
  const bytes = await encodePng(output)
  progress('encoded', 1)
  return {
    bytes,
    contentType: 'image/png',
    width: image.width,
    height: image.height,
    modelMs,
    gfpganAvailable: useGfpgan,
    facesFound: detection.faces.length,
  }
}
