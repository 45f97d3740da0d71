// Face blurrer: every face YuNet finds is covered by a strong Gaussian blur seen through a
// feathered ellipse a little larger than the face. The output is a fresh PNG, so no EXIF or GPS
// data from the upload survives.
import sharp from 'sharp'
import { detectFaces, type Face } from './face-detector.server'
import type { PhaseProgress, RgbaImage, ToolOutput } from './image'
import { assertRgbaImage, blendThroughEllipse, cropRaw, encodePng, rawOf, type RawImage } from './models/pixels.server'

/** The ellipse covers 1.3× the detector's box (forehead, jaw and ears included). */
const ELLIPSE_SCALE = 1.3
/** Fully blurred up to this share of the ellipse's radius, then feathered to its rim. */
const FEATHER_INNER = 0.8

/**
 * The slider's value is the blur radius in px (sigma = radius / 2). A face much larger than the
 * radius would stay recognisable through it, so the sigma also grows with the face: at least an
 * eighth of the face's size, which leaves no features to read.
 */
export function blurSigma(blur: number, face: Pick<Face, 'width' | 'height'>): number {
  return Math.max(blur / 2, Math.max(face.width, face.height) / 8)
}

/** Above this sigma the patch is blurred at a reduced size: same look, a fraction of the work. */
const DIRECT_SIGMA_LIMIT = 12

async function blurPatch(patch: RawImage, sigma: number): Promise<RawImage> {
  const raw = { raw: { width: patch.width, height: patch.height, channels: patch.channels } }
  let data: Buffer
  if (sigma <= DIRECT_SIGMA_LIMIT) {
    data = await sharp(patch.data, raw).blur(sigma).raw().toBuffer()
  } else {
    // A Gaussian of sigma s equals one of s/f at 1/f the size, enlarged again smoothly: a big face's
    // sigma of 90 px becomes 8 px on an 11× smaller patch instead of a 540-tap kernel at full size.
    const factor = sigma / 8
    const width = Math.max(1, Math.round(patch.width / factor))
    const height = Math.max(1, Math.round(patch.height / factor))
    const small = await sharp(patch.data, raw).resize(width, height, { fit: 'fill', kernel: 'linear' }).blur(sigma / factor).raw().toBuffer()
    data = await sharp(small, { raw: { width, height, channels: patch.channels } })
      .resize(patch.width, patch.height, { fit: 'fill', kernel: 'cubic' })
      .raw()
      .toBuffer()
  }
  return { data, width: patch.width, height: patch.height, channels: patch.channels }
}

/** Detection done, then each face blurred (fraction of the faces), then the PNG encoded. */
export type BlurPhase = 'detected' | 'faces' | 'encoded'

/** A box to blur, in the picture's pixels (a detected face, or one drawn by the user). */
export type FaceArea = Pick<Face, 'x' | 'y' | 'width' | 'height'>

/**
 * The picture with each box blurred, in order, as a PNG: the one rendering of a run and of a
 * correction's boxes (decision 157), so the two can never differ.
 */
export async function renderBlur(
  image: RgbaImage,
  faces: readonly FaceArea[],
  blur: number,
  progress: PhaseProgress<BlurPhase> = () => {},
): Promise<Buffer> {
  if (!Number.isFinite(blur) || blur <= 0) throw new RangeError(`blur must be a positive number (got ${blur})`)
  const output: RawImage = { ...rawOf(image), data: Buffer.from(image.data) }
  let facesDone = 0
  for (const face of faces) {
    progress('faces', facesDone++ / faces.length)
    const sigma = blurSigma(blur, face)
    const ellipse = {
      cx: face.x + face.width / 2,
      cy: face.y + face.height / 2,
      rx: (face.width * ELLIPSE_SCALE) / 2,
      ry: (face.height * ELLIPSE_SCALE) / 2,
    }
    // Blur a region wider than the ellipse by 3 sigma, so the pixels under the ellipse are
    // averaged over their true neighbours, not over the patch's clamped edge.
    const reach = Math.ceil(3 * sigma)
    const left = Math.max(0, Math.floor(ellipse.cx - ellipse.rx - reach))
    const top = Math.max(0, Math.floor(ellipse.cy - ellipse.ry - reach))
    const right = Math.min(image.width, Math.ceil(ellipse.cx + ellipse.rx + reach))
    const bottom = Math.min(image.height, Math.ceil(ellipse.cy + ellipse.ry + reach))
    if (right <= left || bottom <= top) continue
    // Blurring the already-processed output keeps overlapping faces both blurred.
    const blurred = await blurPatch(cropRaw(output, left, top, right - left, bottom - top), sigma)
    blendThroughEllipse(output, blurred, left, top, ellipse, FEATHER_INNER)
  }
  progress('faces', 1)
  return encodePng(output)
}

export async function blurFaces(
  image: RgbaImage,
  options: { blur: number; signal?: AbortSignal; progress?: PhaseProgress<BlurPhase> },
): Promise<ToolOutput & { facesFound: number; faces: Face[] }> {
  assertRgbaImage(image)
  const progress = options.progress ?? (() => {})
  if (!Number.isFinite(options.blur) || options.blur <= 0) throw new RangeError(`blur must be a positive number (got ${options.blur})`)
  const { faces, modelMs } = await detectFaces(image)
  progress('detected', 1)
  options.signal?.throwIfAborted()
  const bytes = await renderBlur(image, faces, options.blur, progress)
  progress('encoded', 1)
  return { bytes, contentType: 'image/png', width: image.width, height: image.height, modelMs, facesFound: faces.length, faces }
}
