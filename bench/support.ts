// What the bench scripts share: the test photos at a chosen size, and running a bench as a script.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import sharp from 'sharp'
import type { RgbaImage } from '../app/features/tools/image'

export const PHOTOS = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../tests/fixtures/photos')

/** A photo of tests/fixtures/photos stretched to about `megapixels` (same aspect), as RGBA. */
export async function fixtureAt(name: string, megapixels: number): Promise<RgbaImage> {
  const meta = await sharp(path.join(PHOTOS, name)).metadata()
  const aspect = (meta.width ?? 1) / (meta.height ?? 1)
  const height = Math.round(Math.sqrt((megapixels * 1e6) / aspect))
  const width = Math.round(height * aspect)
  const { data, info } = await sharp(path.join(PHOTOS, name))
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

/**
 * When the module at `moduleUrl` is the script node was started with (not imported by bench/run.ts):
 * runs `main`, prints its result as JSON and exits (1 on an error).
 */
export function runAsScript(moduleUrl: string, main: () => Promise<unknown>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return
  main().then(
    (result) => {
      console.log(JSON.stringify(result, null, 2))
      process.exit(0)
    },
    (error) => {
      console.error(error)
      process.exit(1)
    },
  )
}
