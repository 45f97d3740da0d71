// YuNet face detection (decoding as in OpenCV's FaceDetectorYN; see ../shared/models/MODELS.md).
// Runs at full resolution up to a 1920 px long side, because small faces in group photos need it.
import type { RgbaImage } from './image'
import { runModel, type ModelOutputs } from './models/registry.server'
import { rawOf, resizeRaw, toChwTensor, type RawImage } from './models/pixels.server'

export const DETECTION_MAX_SIDE = 1920
export const SCORE_THRESHOLD = 0.6
export const NMS_IOU = 0.3
const STRIDES = [8, 16, 32] as const

export type Point = [number, number]

export interface Face {
  x: number
  y: number
  width: number
  height: number
  score: number
  /** Eye on the image's left, eye on the right, nose tip, mouth corner left, mouth corner right. */
  landmarks: [Point, Point, Point, Point, Point]
}

function iou(a: Face, b: Face): number {
  const x1 = Math.max(a.x, b.x)
  const y1 = Math.max(a.y, b.y)
  const x2 = Math.min(a.x + a.width, b.x + b.width)
  const y2 = Math.min(a.y + a.height, b.y + b.height)
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1)
  return inter / (a.width * a.height + b.width * b.height - inter)
}

function nonMaximumSuppression(faces: Face[]): Face[] {
  const sorted = [...faces].sort((a, b) => b.score - a.score)
  const kept: Face[] = []
  for (const face of sorted) if (kept.every((k) => iou(k, face) <= NMS_IOU)) kept.push(face)
  return kept
}

const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v)

function decode(outputs: ModelOutputs, paddedWidth: number, paddedHeight: number): Face[] {
  const faces: Face[] = []
  for (const s of STRIDES) {
    const cls = outputs[`cls_${s}`].data as Float32Array
    const obj = outputs[`obj_${s}`].data as Float32Array
    const bbox = outputs[`bbox_${s}`].data as Float32Array
    const kps = outputs[`kps_${s}`].data as Float32Array
    const cols = paddedWidth / s
    const rows = paddedHeight / s
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = r * cols + c
        const score = Math.sqrt(clamp01(cls[i]) * clamp01(obj[i]))
        if (score < SCORE_THRESHOLD) continue
        const cx = (c + bbox[i * 4]) * s
        const cy = (r + bbox[i * 4 + 1]) * s
        const w = Math.exp(bbox[i * 4 + 2]) * s
        const h = Math.exp(bbox[i * 4 + 3]) * s
        const landmarks = [0, 1, 2, 3, 4].map(
          (k) => [(c + kps[i * 10 + 2 * k]) * s, (r + kps[i * 10 + 2 * k + 1]) * s] as Point,
        ) as Face['landmarks']
        faces.push({ x: cx - w / 2, y: cy - h / 2, width: w, height: h, score, landmarks })
      }
    }
  }
  return faces
}

/** Finds faces; boxes and landmarks are in the input image's pixel coordinates. */
export async function detectFaces(image: RgbaImage): Promise<{ faces: Face[]; modelMs: number }> {
  const longSide = Math.max(image.width, image.height)
  const factor = longSide > DETECTION_MAX_SIDE ? DETECTION_MAX_SIDE / longSide : 1
  let pixels: RawImage = rawOf(image)
  if (factor < 1) {
    pixels = await resizeRaw(pixels, Math.max(1, Math.round(image.width * factor)), Math.max(1, Math.round(image.height * factor)), 'cubic')
  }
  // The network wants sizes in multiples of 32: pad with black at the bottom and right, never stretch.
  const paddedWidth = Math.ceil(pixels.width / 32) * 32
  const paddedHeight = Math.ceil(pixels.height / 32) * 32
  const tensor = toChwTensor(pixels, { order: 'bgr', width: paddedWidth, height: paddedHeight })
  const { outputs, ms } = await runModel('yunet', tensor.data, tensor.dims)
  const sx = image.width / pixels.width
  const sy = image.height / pixels.height
  const faces = nonMaximumSuppression(decode(outputs, paddedWidth, paddedHeight)).map((f) => ({
    ...f,
    x: f.x * sx,
    y: f.y * sy,
    width: f.width * sx,
    height: f.height * sy,
    landmarks: f.landmarks.map(([x, y]) => [x * sx, y * sy]) as Face['landmarks'],
  }))
  return { faces, modelMs: ms }
}
