// Test helpers for the tool modules: fixture photos decoded the way the upload pipeline decodes
// them, PNG decoding, and a clear failure when the models are not installed.
import { existsSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { RgbaImage } from '../image'
import { isModelInstalled } from './registry.server'

export const PHOTOS = path.resolve(__dirname, '../../../../tests/fixtures/photos')

export async function loadFixture(name: string, resize?: { width: number; height: number }): Promise<RgbaImage> {
  const file = path.join(PHOTOS, name)
  if (!existsSync(file)) throw new Error(`Missing fixture ${file}`)
  let pipeline = sharp(file).rotate()
  if (resize) pipeline = pipeline.resize(resize.width, resize.height, { fit: 'fill' })
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

export async function decodePng(bytes: Buffer): Promise<RgbaImage & { channels: number; format: string; hasExif: boolean }> {
  const meta = await sharp(bytes).metadata()
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height, channels: meta.channels ?? 0, format: meta.format ?? '', hasExif: Boolean(meta.exif) }
}

export function requireModels(...ids: string[]): void {
  const missing = ids.filter((id) => !isModelInstalled(id))
  if (missing.length > 0) {
    throw new Error(`Models not installed: ${missing.join(', ')}. Run: MODELS_FROM=/work/shared/models npx tsx scripts/install-models.ts`)
  }
}

/** Mean absolute difference of the RGB channels inside a rectangle. */
export function meanDifference(a: RgbaImage, b: RgbaImage, box: { x: number; y: number; width: number; height: number }): number {
  let sum = 0
  let count = 0
  for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(a.height, box.y + box.height); y++) {
    for (let x = Math.max(0, Math.floor(box.x)); x < Math.min(a.width, box.x + box.width); x++) {
      const i = (y * a.width + x) * 4
      sum += Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2])
      count += 3
    }
  }
  return count === 0 ? 0 : sum / count
}
