// Test helpers for the tool modules: fixture photos decoded the way the upload pipeline decodes
// them, PNG decoding, and a clear failure when the models are not installed.
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll } from 'vitest'
import { config, resetConfigForTests } from '~/config.server'
import type { RgbaImage } from '../image'
import { modelEntry } from './manifest'
import { isModelInstalled, releaseModels } from './registry.server'

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

/**
 * For the describe block it is called in: the app reads its models from a temporary folder that
 * links the named installed models and holds the given stand-in files (by model id), then from the
 * real folder again. Returns the temporary folder.
 */
export function useModelsFolder(options: {
  link: string[]
  standIns?: () => Record<string, Uint8Array>
  /** Extra clean-up before the real folder comes back (e.g. caches built from the stand-ins). */
  beforeRestore?: () => void
}): string {
  const originalDir = config().modelsDir
  const folder = mkdtempSync(path.join(os.tmpdir(), 'facet-models-'))

  beforeAll(async () => {
    requireModels(...options.link)
    for (const id of options.link) symlinkSync(path.join(originalDir, modelEntry(id).file), path.join(folder, modelEntry(id).file))
    for (const [id, bytes] of Object.entries(options.standIns?.() ?? {})) writeFileSync(path.join(folder, modelEntry(id).file), bytes)
    process.env.MODELS_DIR = folder
    resetConfigForTests()
    await releaseModels()
  })

  afterAll(async () => {
    process.env.MODELS_DIR = originalDir
    resetConfigForTests()
    options.beforeRestore?.()
    await releaseModels()
    rmSync(folder, { recursive: true, force: true })
  })

  return folder
}
