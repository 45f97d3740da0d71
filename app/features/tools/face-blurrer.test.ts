import sharp from 'sharp'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { blurFaces } from './face-blurrer.server'
import { detectFaces } from './face-detector.server'
import type { RgbaImage } from './image'
import { decodePng, loadFixture, meanDifference, requireModels } from './models/fixtures.test-support'

/** Sum of absolute horizontal and vertical differences of the green channel: what eyes and mouths are made of. */
function edgeEnergy(image: RgbaImage, box: { x: number; y: number; width: number; height: number }): number {
  let sum = 0
  for (let y = Math.floor(box.y); y < box.y + box.height - 1; y++) {
    for (let x = Math.floor(box.x); x < box.x + box.width - 1; x++) {
      const i = (y * image.width + x) * 4 + 1
      sum += Math.abs(image.data[i] - image.data[i + 4]) + Math.abs(image.data[i] - image.data[i + image.width * 4])
    }
  }
  return sum
}

// Real models on a shared 2-core machine: a run can take seconds.
vi.setConfig({ testTimeout: 180_000 })

beforeAll(() => requireModels('yunet'))

describe('face detection on the fixtures', () => {
  it.each([
    ['group-nasa-astronaut-class.jpg', 23],
    ['group-nasa-astronaut-class-2.png', 8],
    ['portrait-astronaut.png', 1],
    ['degraded-face-astronaut-128px-q35.jpg', 1],
    ['degraded-face-crop-64px.jpg', 1],
    ['noface-coffee.png', 0],
    ['noface-cat-chelsea.png', 0],
    ['noface-rocket.jpg', 0],
    ['product-gameboy-white-bg.jpg', 0],
  ])('%s has %i face(s)', async (name, expected) => {
    const { faces } = await detectFaces(await loadFixture(name))
    expect(faces).toHaveLength(expected)
    for (const face of faces) {
      expect(face.score).toBeGreaterThanOrEqual(0.6)
      expect(face.width).toBeGreaterThan(10)
    }
  })

  it('maps boxes back to full resolution when it detects on a downscaled copy', async () => {
    const small = await loadFixture('group-nasa-astronaut-class.jpg')
    // 640×280 blown up to 2560×1120: detection runs at 1920 px and boxes come back ×4.
    const large = await loadFixture('group-nasa-astronaut-class.jpg', { width: 2560, height: 1120 })
    const [a, b] = await Promise.all([detectFaces(small), detectFaces(large)])
    expect(b.faces).toHaveLength(23)
    const centre = (f: { x: number; width: number }) => f.x + f.width / 2
    const smallCentres = a.faces.map(centre).sort((p, q) => p - q)
    const largeCentres = b.faces.map((f) => centre(f) / 4).sort((p, q) => p - q)
    smallCentres.forEach((c, i) => expect(Math.abs(c - largeCentres[i])).toBeLessThan(4))
  })
})

describe('blurFaces', () => {
  it('blurs every face of a group photo and leaves the rest alone', async () => {
    const input = await loadFixture('group-nasa-astronaut-class-2.png')
    const { faces } = await detectFaces(input)
    const result = await blurFaces(input, { blur: 32 })
    expect(result.facesFound).toBe(8)
    expect(result.contentType).toBe('image/png')
    const output = await decodePng(result.bytes)
    expect([output.width, output.height]).toEqual([input.width, input.height])
    for (const face of faces) {
      // The middle of each face (eyes, nose, mouth) must be changed beyond recognition.
      const core = { x: face.x + face.width * 0.25, y: face.y + face.height * 0.25, width: face.width * 0.5, height: face.height * 0.5 }
      expect(meanDifference(input, output, core)).toBeGreaterThan(8)
    }
    // A corner far from every face is untouched.
    expect(meanDifference(input, output, { x: 0, y: input.height - 20, width: 20, height: 20 })).toBe(0)
  })

  it('destroys the face detail: almost no edge energy is left inside the face', async () => {
    const input = await loadFixture('portrait-astronaut.png')
    const [face] = (await detectFaces(input)).faces
    const result = await blurFaces(input, { blur: 12 })
    expect(result.facesFound).toBe(1)
    const output = await decodePng(result.bytes)
    const core = { x: face.x + face.width * 0.2, y: face.y + face.height * 0.2, width: face.width * 0.6, height: face.height * 0.6 }
    expect(edgeEnergy(output, core)).toBeLessThan(edgeEnergy(input, core) * 0.1)
  })

  it('a stronger blur changes the face more', async () => {
    const input = await loadFixture('group-nasa-astronaut-class.jpg')
    const { faces } = await detectFaces(input)
    const face = faces.reduce((a, b) => (a.width > b.width ? a : b))
    const box = { x: face.x, y: face.y, width: face.width, height: face.height }
    const weak = await decodePng((await blurFaces(input, { blur: 12 })).bytes)
    const strong = await decodePng((await blurFaces(input, { blur: 60 })).bytes)
    expect(meanDifference(input, strong, box)).toBeGreaterThan(meanDifference(input, weak, box))
  })

  it.each(['noface-coffee.png', 'noface-rocket.jpg'])('returns %s unchanged with facesFound 0', async (name) => {
    const input = await loadFixture(name)
    const result = await blurFaces(input, { blur: 32 })
    expect(result.facesFound).toBe(0)
    const output = await decodePng(result.bytes)
    expect(Buffer.compare(output.data, input.data)).toBe(0)
  })

  it('strips EXIF and GPS metadata from the output', async () => {
    const source = await loadFixture('portrait-astronaut.png')
    const withExif = await sharp(source.data, { raw: { width: source.width, height: source.height, channels: 4 } })
      .jpeg()
      .withExif({ IFD0: { Artist: 'Secret Person' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .toBuffer()
    expect((await sharp(withExif).metadata()).exif).toBeDefined()
    const { data, info } = await sharp(withExif).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    const result = await blurFaces({ data, width: info.width, height: info.height }, { blur: 32 })
    const meta = await sharp(result.bytes).metadata()
    expect(meta.exif).toBeUndefined()
    expect(meta.xmp).toBeUndefined()
    expect(result.bytes.includes(Buffer.from('Secret Person'))).toBe(false)
  })

  it('refuses a buffer that does not match its dimensions', async () => {
    await expect(blurFaces({ data: Buffer.alloc(10), width: 4, height: 4 }, { blur: 32 })).rejects.toThrow(/expected 64/)
  })
})
