// Scenes with exact ground truth for the matte-quality benchmark (bench/quality.ts): an object whose
// alpha is known, composited over a real photograph (a defocused crop) at a chosen size and place. Nothing generated is
// kept: the same --seed and --count give the same scenes from the same sources.
//   Objects: Debian's openclipart-png (public domain; `apt-get install -y openclipart-png`), and the
//   router fixture with its ground-truth alpha. Backgrounds: the public-domain photos of tests/fixtures.
// fixtureScenes() builds a fixed set from tests/fixtures alone (the regression test runs it on CI).
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { RgbaImage } from '../app/features/tools/image'
import { PHOTOS } from './support'

export const OPENCLIPART_PNG = '/usr/share/openclipart/png'
const INSTALL_HINT = `The matte-quality benchmark composites public-domain clip art from Debian's openclipart-png: install it with
  sudo apt-get install -y openclipart-png
(it puts about 8,000 PNGs under ${OPENCLIPART_PNG}).`

const ROUTER = 'product-router-alpha-groundtruth.png'
/**
 * The photos behind the objects (tests/fixtures/photos, public domain or CC0; FIXTURES.md). Not the
 * portraits and group photos: people stay the salient subject even out of focus (measured: IoU
 * 0.10-0.49 on the object, the model cut out the astronauts).
 */
const BACKGROUNDS = ['noface-coffee.png', 'noface-cat-chelsea.png', 'noface-rocket.jpg', 'product-gameboy-white-bg.jpg']
/** Scene sizes: the long side (px) and the aspect (width / height). */
const LONG_SIDES = [480, 720, 1024, 1600]
const ASPECTS = [1, 4 / 3, 3 / 4, 3 / 2]

export interface Scene {
  id: string
  /** The composite the remover is given. */
  image: RgbaImage
  /** The exact answer: the object's alpha at each pixel, and its colour (RGB) where alpha > 0. */
  truthAlpha: Uint8Array
  truthRgb: Uint8Array
}

/** An object with its own alpha, cropped to where it is not fully transparent. */
interface ClipObject {
  name: string
  rgba: Buffer
  width: number
  height: number
}

/** mulberry32: a small seeded generator, so scenes are the same on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

const pick = <T>(rng: () => number, values: readonly T[]): T => values[Math.floor(rng() * values.length)]

/** Every PNG of openclipart-png, sorted (the order the seed picks from); fails with how to install it. */
export function openclipartFiles(folder = OPENCLIPART_PNG): string[] {
  if (!existsSync(folder)) throw new Error(INSTALL_HINT)
  const files = (readdirSync(folder, { recursive: true }) as string[]).filter((f) => f.endsWith('.png')).sort()
  if (files.length === 0) throw new Error(INSTALL_HINT)
  return files.map((f) => path.join(folder, f))
}

async function loadObject(file: string): Promise<ClipObject | null> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  let left = info.width
  let top = info.height
  let right = -1
  let bottom = -1
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[(y * info.width + x) * 4 + 3] === 0) continue
      if (x < left) left = x
      if (x > right) right = x
      if (y < top) top = y
      if (y > bottom) bottom = y
    }
  }
  if (right < 0) return null
  const width = right - left + 1
  const height = bottom - top + 1
  const rgba = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++) data.copy(rgba, y * width * 4, ((top + y) * info.width + left) * 4, ((top + y) * info.width + right + 1) * 4)
  return { name: path.basename(file), rgba, width, height }
}

/** Shares of the object's box that are solid (alpha ≥ 128) and partly transparent. */
function alphaShares(object: ClipObject): { solid: number; partial: number } {
  let solid = 0
  let partial = 0
  for (let i = 3; i < object.rgba.length; i += 4) {
    if (object.rgba[i] >= 128) solid++
    if (object.rgba[i] > 0 && object.rgba[i] < 255) partial++
  }
  const area = object.width * object.height
  return { solid: solid / area, partial: partial / area }
}

/**
 * A clip-art object a salient-object model can be asked for: large enough, mostly solid (line
 * drawings and outlines have no one "subject"), and for `soft` scenes with real partial
 * transparency (glows, shadows, soft edges) beyond antialiasing.
 */
async function pickObject(rng: () => number, files: string[], soft: boolean): Promise<ClipObject> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const object = await loadObject(pick(rng, files))
    if (!object || Math.min(object.width, object.height) < 96) continue
    const shares = alphaShares(object)
    if (shares.solid < 0.35) continue
    if (soft ? shares.partial < 0.04 : shares.partial > 0.04) continue
    return object
  }
  throw new Error('No suitable object found in openclipart-png after 400 picks')
}

async function routerObject(): Promise<ClipObject> {
  const { data, info } = await sharp(path.join(PHOTOS, ROUTER)).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { name: ROUTER, rgba: data, width: info.width, height: info.height }
}

/**
 * What is behind the object: a crop of a photo (`share` of its sides, its top-left corner at
 * (x, y) as shares of the room left) thrown out of focus by a Gaussian of `blur` px at the scene's
 * size, as behind a product or a portrait. In focus, a photo's own subject (the astronaut, the
 * cat) competes with the object, and the benchmark would measure which one the model picks
 * instead of how well it draws the edge.
 */
interface Backdrop {
  file: string
  share: number
  x: number
  y: number
  blur: number
}

async function backdropPixels(backdrop: Backdrop, width: number, height: number): Promise<Buffer> {
  const file = path.join(PHOTOS, backdrop.file)
  const meta = await sharp(file).metadata()
  const cropWidth = Math.max(8, Math.round((meta.width ?? 1) * backdrop.share))
  const cropHeight = Math.max(8, Math.round((meta.height ?? 1) * backdrop.share))
  const region = {
    left: Math.round(((meta.width ?? 1) - cropWidth) * backdrop.x),
    top: Math.round(((meta.height ?? 1) - cropHeight) * backdrop.y),
    width: cropWidth,
    height: cropHeight,
  }
  const resized = await sharp(file).extract(region).resize(width, height, { fit: 'cover' }).removeAlpha().raw().toBuffer()
  return backdrop.blur > 0 ? sharp(resized, { raw: { width, height, channels: 3 } }).blur(backdrop.blur).raw().toBuffer() : resized
}

/**
 * The object resized to `size` (long side) and laid over the background photo (cropped to cover
 * width × height) at (left, top), which may put part of it outside the frame. The composite is
 * computed here, exactly: colour = F·a + B·(1 − a), rounded.
 */
async function composite(
  object: ClipObject,
  backdrop: Backdrop,
  width: number,
  height: number,
  size: number,
  place: { x: number; y: number },
  id: string,
): Promise<Scene> {
  const scale = size / Math.max(object.width, object.height)
  const ow = Math.max(1, Math.round(object.width * scale))
  const oh = Math.max(1, Math.round(object.height * scale))
  // sharp premultiplies alpha while resizing, so the resized colours do not take in the transparent pixels'.
  const resized = await sharp(object.rgba, { raw: { width: object.width, height: object.height, channels: 4 } })
    .resize(ow, oh, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer()
  const background = await backdropPixels(backdrop, width, height)
  const left = Math.round(place.x * (width - ow * 0.7) - ow * 0.15)
  const top = Math.round(place.y * (height - oh * 0.7) - oh * 0.15)
  const data = Buffer.alloc(width * height * 4)
  const truthAlpha = new Uint8Array(width * height)
  const truthRgb = new Uint8Array(width * height * 3)
  for (let p = 0; p < width * height; p++) {
    const x = (p % width) - left
    const y = Math.floor(p / width) - top
    const o = x >= 0 && y >= 0 && x < ow && y < oh ? (y * ow + x) * 4 : -1
    const a = o >= 0 ? resized[o + 3] / 255 : 0
    for (let k = 0; k < 3; k++) {
      const f = o >= 0 ? resized[o + k] : 0
      data[p * 4 + k] = Math.round(f * a + background[p * 3 + k] * (1 - a))
      if (a > 0) truthRgb[p * 3 + k] = f
    }
    data[p * 4 + 3] = 255
    truthAlpha[p] = o >= 0 ? resized[o + 3] : 0
  }
  return { id, image: { data, width, height }, truthAlpha, truthRgb }
}

/**
 * `count` scenes from `seed`, one at a time. Every eighth holds the router (its exact alpha), the
 * others clip art, half of them objects with real partial transparency; sizes, aspects, object
 * scales (35-80 % of the short side), places (sometimes partly out of the frame) and backgrounds vary.
 */
export async function* generateScenes(seed: number, count: number): AsyncGenerator<Scene> {
  const files = openclipartFiles()
  const router = await routerObject()
  for (let i = 0; i < count; i++) {
    const rng = random(seed * 100_003 + i)
    const long = pick(rng, LONG_SIDES)
    const aspect = pick(rng, ASPECTS)
    const width = aspect >= 1 ? long : Math.round(long * aspect)
    const height = aspect >= 1 ? Math.round(long / aspect) : long
    const object = i % 8 === 7 ? router : await pickObject(rng, files, i % 2 === 0)
    const size = Math.round((0.35 + rng() * 0.45) * Math.min(width, height))
    const place = { x: rng(), y: rng() }
    const backdrop = { file: pick(rng, BACKGROUNDS), share: 0.4 + rng() * 0.6, x: rng(), y: rng(), blur: (2 + rng() * 4) * (long / 720) }
    yield await composite(object, backdrop, width, height, size, place, `${i}:${object.name}@${backdrop.file}:${width}x${height}`)
  }
}

/**
 * Ten fixed scenes from tests/fixtures alone (the router over the photos, several sizes and
 * places), for the regression test: no package to install, the same everywhere.
 */
export async function fixtureScenes(): Promise<Scene[]> {
  const router = await routerObject()
  const layouts = [
    { background: 'noface-coffee.png', width: 600, height: 400, size: 300, x: 0.5, y: 0.5 },
    { background: 'noface-cat-chelsea.png', width: 480, height: 480, size: 260, x: 0.2, y: 0.7 },
    { background: 'noface-rocket.jpg', width: 720, height: 540, size: 420, x: 0.8, y: 0.3 },
    { background: 'product-gameboy-white-bg.jpg', width: 512, height: 512, size: 220, x: 0.6, y: 0.9 },
    { background: 'noface-coffee.png', width: 640, height: 420, size: 320, x: 0.4, y: 0.4 },
    { background: 'noface-rocket.jpg', width: 420, height: 560, size: 300, x: 0.5, y: 0.6 },
    { background: 'product-gameboy-white-bg.jpg', width: 800, height: 600, size: 440, x: 0.3, y: 0.5 },
    { background: 'noface-coffee.png', width: 1024, height: 768, size: 600, x: 0.7, y: 0.6 },
    { background: 'noface-rocket.jpg', width: 360, height: 480, size: 240, x: 0.5, y: 0.2 },
    { background: 'noface-cat-chelsea.png', width: 900, height: 600, size: 380, x: 0.9, y: 0.8 },
  ]
  return Promise.all(
    layouts.map((l, i) => {
      const backdrop = { file: l.background, share: 0.5 + (i % 3) * 0.2, x: (i * 0.37) % 1, y: (i * 0.61) % 1, blur: 2 + (i % 4) * 1.2 }
      return composite(router, backdrop, l.width, l.height, l.size, l, `fixture-${i}:${l.background}:${l.width}x${l.height}`)
    }),
  )
}
