// Real photos of a chosen weight, for the upload limits: a fixture photo enlarged with sharp, with a
// fine grain (as a phone's sensor leaves it) so that JPEG cannot shrink it, encoded until its size
// lands in [bytes − 8 %, bytes]. Written once to tests/.tmp/photos (never committed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'

const FIXTURES = process.env.FIXTURES_DIR ?? 'tests/fixtures'
const OUT = 'tests/.tmp/photos'
const SOURCE = 'photos/noface-rocket.jpg'

async function grainyJpeg(scale: number, seed: number): Promise<Buffer> {
  const source = sharp(readFileSync(path.join(FIXTURES, SOURCE)))
  const { width, height } = await source.metadata()
  const w = Math.round(width! * scale)
  const h = Math.round(height! * scale)
  const { data, info } = await source.resize(w, h).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  // A small linear congruential generator: the same photo every run.
  let state = seed
  for (let i = 0; i < data.length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0
    data[i] = Math.max(0, Math.min(255, data[i]! + ((state >>> 24) % 129) - 64))
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).jpeg({ quality: 100 }).toBuffer()
}

/** A JPEG photo of at most `bytes` and at least 92 % of it. */
export async function photoOfSize(bytes: number): Promise<Buffer> {
  const file = path.join(OUT, `rocket-${bytes}.jpg`)
  if (existsSync(file)) return readFileSync(file)
  let scale = 4
  for (let attempt = 0; attempt < 8; attempt++) {
    const photo = await grainyJpeg(scale, bytes)
    if (photo.byteLength <= bytes && photo.byteLength >= bytes * 0.92) {
      mkdirSync(OUT, { recursive: true })
      writeFileSync(file, photo)
      return photo
    }
    // Bytes grow with the pixels, the square of the scale.
    scale *= Math.sqrt((bytes * 0.96) / photo.byteLength)
  }
  throw new Error(`no photo of about ${bytes} bytes`)
}
