// Quality of the enhancer at several denoise strengths (docs/decisions/014-enhancer-denoise.md):
// each fixture is degraded (the portrait fixture as committed: 128 px, JPEG q35; the others cubic ÷4
// and JPEG q75), enhanced ×4, and compared with the original (PSNR) and for fine detail (mean
// neighbour difference). Run: npx tsx bench/enhancer-denoise.ts
import path from 'node:path'
import sharp from 'sharp'
import type { RgbaImage } from '../app/features/tools/image'
import { enhanceImage } from '../app/features/tools/image-enhancer.server'
import { fineDetail, psnr } from '../app/features/tools/image-quality'

const PHOTOS = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../tests/fixtures/photos')
const LEVELS = [0, 0.3, 0.5, 0.7, 1]

async function rgba(input: string | Buffer, size?: { width: number; height: number }): Promise<RgbaImage> {
  let pipeline = sharp(input)
  if (size) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'cubic' })
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

async function cases(): Promise<Array<{ label: string; input: Buffer; truth: RgbaImage }>> {
  const list = [
    {
      label: 'portrait-astronaut 128 px q35',
      input: await sharp(path.join(PHOTOS, 'degraded-face-astronaut-128px-q35.jpg')).toBuffer(),
      truth: await rgba(path.join(PHOTOS, 'portrait-astronaut.png'), { width: 512, height: 512 }),
    },
  ]
  for (const name of ['noface-cat-chelsea.png', 'noface-coffee.png', 'noface-rocket.jpg']) {
    const file = path.join(PHOTOS, name)
    const meta = await sharp(file).metadata()
    const width = Math.floor(Math.min(meta.width ?? 0, 800) / 4) * 4
    const height = Math.floor(((meta.height ?? 0) * width) / (meta.width ?? 1) / 4) * 4
    const small = await sharp(file).resize(width / 4, height / 4, { fit: 'fill', kernel: 'cubic' }).jpeg({ quality: 75 }).toBuffer()
    list.push({ label: `${name} ÷4 q75`, input: small, truth: await rgba(file, { width, height }) })
  }
  return list
}

for (const { label, input, truth } of await cases()) {
  const image = await rgba(input)
  const lanczos = await rgba(await sharp(input).resize(truth.width, truth.height, { fit: 'fill', kernel: 'lanczos3' }).png().toBuffer())
  const cells = [`${label} (${image.width}×${image.height})`, `Lanczos ${psnr(lanczos, truth).toFixed(2)} dB / ${fineDetail(lanczos).toFixed(2)}`]
  for (const denoise of LEVELS) {
    const output = await rgba((await enhanceImage(image, { denoise })).bytes)
    cells.push(`d=${denoise} ${psnr(output, truth).toFixed(2)} dB / ${fineDetail(output).toFixed(2)}`)
  }
  console.log(cells.join(' | '))
}
