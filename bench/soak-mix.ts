// The soak's mix (bench/soak.ts): every tool with a small and a medium upload made from the fixture
// photos and SVGs (FIXTURES_DIR, else /work/shared/fixtures when present, else tests/fixtures), the
// endpoint and fields a client sends for it. Kept apart so the rate can be sized from the same cases.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { ToolSlug } from '../app/catalog/tools'

const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')

export function fixturesDir(): string {
  if (process.env.FIXTURES_DIR) return path.resolve(process.env.FIXTURES_DIR)
  if (existsSync('/work/shared/fixtures/photos')) return '/work/shared/fixtures'
  return path.join(ROOT, 'tests/fixtures')
}

export type SoakSize = 'small' | 'medium'

export interface SoakCase {
  tool: ToolSlug
  size: SoakSize
  /** The synchronous endpoint (spec §7). */
  endpoint: string
  /** The multipart field of the upload: `svg` for the converter, `image` for the rest. */
  field: 'image' | 'svg'
  fileName: string
  type: string
  bytes: Buffer
  fields: Record<string, string>
  /** What the upload is, for the report. */
  describe: string
}

/** A fixture photo resized to about `megapixels` (same aspect), as a JPEG. */
async function photoAt(name: string, megapixels: number): Promise<{ bytes: Buffer; width: number; height: number }> {
  const file = path.join(fixturesDir(), 'photos', name)
  const meta = await sharp(file).metadata()
  const scale = Math.sqrt((megapixels * 1e6) / (meta.width! * meta.height!))
  const width = Math.round(meta.width! * scale)
  const height = Math.round(meta.height! * scale)
  const bytes = await sharp(file).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer()
  return { bytes, width, height }
}

async function photoCase(tool: ToolSlug, size: SoakSize, endpoint: string, name: string, megapixels: number, fields: Record<string, string> = {}): Promise<SoakCase> {
  const { bytes, width, height } = await photoAt(name, megapixels)
  return { tool, size, endpoint, field: 'image', fileName: name.replace(/\.\w+$/, '.jpg'), type: 'image/jpeg', bytes, fields, describe: `${name} ${width}×${height}` }
}

function svgCase(size: SoakSize, name: string, scale: string): SoakCase {
  const bytes = readFileSync(path.join(fixturesDir(), 'svg', name))
  return { tool: 'svg-converter', size, endpoint: '/api/svg2image/convert/', field: 'svg', fileName: name, type: 'image/svg+xml', bytes, fields: { format: 'png', scale }, describe: `${name} at ${scale}×` }
}

/**
 * Small and medium per tool. Medium is the size a tool is usually sent, within what two workers on
 * two cores keep up with: the enhancer multiplies pixels by 16, and the restorer works on a
 * 512 px face whatever it is sent, so their mediums are smaller than the others'.
 */
export async function soakCases(): Promise<SoakCase[]> {
  return [
    await photoCase('background-remover', 'small', '/api/remove-bg/', 'product-gameboy-white-bg.jpg', 0.25),
    await photoCase('background-remover', 'medium', '/api/remove-bg/', 'product-gameboy-white-bg.jpg', 1),
    await photoCase('face-blurrer', 'small', '/api/face-blur/blur/', 'portrait-astronaut.png', 0.25, { blur: '32' }),
    await photoCase('face-blurrer', 'medium', '/api/face-blur/blur/', 'group-nasa-astronaut-class.jpg', 1, { blur: '32' }),
    await photoCase('face-restorer', 'small', '/api/face-retouch/restore/', 'degraded-face-astronaut-128px-q35.jpg', 0.016),
    await photoCase('face-restorer', 'medium', '/api/face-retouch/restore/', 'portrait-astronaut.png', 0.06),
    await photoCase('image-enhancer', 'small', '/api/image-scaler/scale/', 'degraded-face-crop-64px.jpg', 0.004),
    await photoCase('image-enhancer', 'medium', '/api/image-scaler/scale/', 'noface-rocket.jpg', 0.02),
    svgCase('small', 'tango-internet-web-browser.svg', '1'),
    svgCase('medium', 'openclipart-analog-clock-gradient-text.svg', '2'),
  ]
}
