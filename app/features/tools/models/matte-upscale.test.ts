import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { refineMatte, softBandReach } from './matte.server'
import { upscaleMatteExact, upscaleMatteNearEdges } from './matte-upscale.server'
import type { RawImage } from './pixels.server'

function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
}

/** A model-like matte: a few soft-edged blobs (low outside, high inside, a ramp a pixel or two wide), plus specks. */
function blobMatte(size: number, seed: number): RawImage {
  const next = random(seed)
  const blobs = Array.from({ length: 3 }, () => ({ x: next() * size, y: next() * size, r: size * (0.08 + next() * 0.25) }))
  const data = Buffer.alloc(size * size)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const inside = Math.max(...blobs.map((b) => b.r - Math.hypot(x - b.x, y - b.y)))
      // Like a model's output, not quite 0 or 255 away from the edge.
      const value = Math.max(0, Math.min(255, Math.round(128 + inside * 90)))
      data[y * size + x] = value === 255 ? 255 - Math.floor(next() * 60) : value === 0 ? Math.floor(next() * 60) : value
    }
  }
  for (let k = 0; k < 4; k++) data[Math.floor(next() * data.length)] = 200
  return { data, width: size, height: size, channels: 1 }
}

const refinement = { minComponentShare: 0.1, edgeSigma: 1.5, backdropDistance: 24 }

describe('upscaleMatteNearEdges', () => {
  it('gives the same refined matte as the exact upscale, while leaving much of the image to stand-ins', { timeout: 60_000 }, async () => {
    const width = 700
    const height = 530
    const picture = await sharp({ create: { width, height, channels: 4, background: '#ffffff' } }).raw().toBuffer()
    // Some drawings are all edge (then the whole image is computed); over these six, most is left out.
    let standIns = 0
    for (let seed = 1; seed <= 6; seed++) {
      const matte = blobMatte(40, seed)
      const exact = await upscaleMatteExact(matte, width, height)
      expect(exact.equals(await sharp(matte.data, { raw: { width: 40, height: 40, channels: 1 } }).resize(width, height, { fit: 'fill', kernel: 'cubic' }).toColourspace('b-w').raw().toBuffer())).toBe(true)
      const near = await upscaleMatteNearEdges(matte, width, height, softBandReach(refinement))
      expect(near.hasForeground).toBe(true)
      // Written in bands by the image threads (as large mattes are): the same bytes.
      const inThreads = await upscaleMatteNearEdges(matte, width, height, softBandReach(refinement), { inThreads: true })
      expect(inThreads.data.equals(near.data)).toBe(true)
      expect(inThreads.hasForeground).toBe(true)
      // With its mask, the threshold of what it wrote.
      for (const upscaled of [near, inThreads]) expect(upscaled.mask.every((value, p) => value === (upscaled.data[p]! >= 128 ? 255 : 0))).toBe(true)
      let otherSide = 0
      for (let p = 0; p < exact.length; p++) {
        if (near.data[p]! >= 128 !== exact[p]! >= 128) otherSide++
        if (near.data[p] !== exact[p]) standIns++
      }
      expect(otherSide).toBe(0)
      const fromExact = await refineMatte(Buffer.from(exact), picture, width, height, refinement)
      const fromNear = await refineMatte(Buffer.from(near.data), picture, width, height, refinement)
      expect(fromNear.equals(fromExact)).toBe(true)
    }
    expect(standIns).toBeGreaterThan((6 * width * height) / 10)
  })

  for (const inThreads of [false, true]) {
    it(`says when nothing reaches the threshold (the caller then needs the exact matte)${inThreads ? ', in the image threads' : ''}`, async () => {
      const faint = { data: Buffer.alloc(40 * 40, 30), width: 40, height: 40, channels: 1 as const }
      expect((await upscaleMatteNearEdges(faint, 400, 300, 8, { inThreads })).hasForeground).toBe(false)
      // One bright pixel: no tile is surely above, the exact values near it reach the threshold.
      faint.data[20 * 40 + 20] = 255
      expect((await upscaleMatteNearEdges(faint, 400, 300, 8, { inThreads })).hasForeground).toBe(true)
    })
  }

  it('computes a downscale whole (its kernel reads further than a tile’s footprint)', async () => {
    const matte = blobMatte(64, 9)
    const down = await upscaleMatteNearEdges(matte, 48, 40, 8)
    expect(down.data.equals(await upscaleMatteExact(matte, 48, 40))).toBe(true)
  })
})
