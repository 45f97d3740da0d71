// Animated test images built by hand: sharp reads APNG but cannot write it.
import sharp from 'sharp'
import { PNG_SIGNATURE, pngChunk as chunk } from './png'

/** The chunks of a PNG, in order. */
function chunks(png: Buffer): { type: string; data: Uint8Array }[] {
  const out: { type: string; data: Uint8Array }[] = []
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at)
    out.push({ type: png.toString('latin1', at + 4, at + 8), data: png.subarray(at + 8, at + 8 + length) })
    at += 12 + length
  }
  return out
}

function frameControl(sequence: number, width: number, height: number): Buffer {
  const data = Buffer.alloc(26)
  data.writeUInt32BE(sequence, 0)
  data.writeUInt32BE(width, 4)
  data.writeUInt32BE(height, 8)
  data.writeUInt16BE(1, 20) // delay 1/10 s
  data.writeUInt16BE(10, 22)
  return data
}

/** A two-frame APNG (first frame `first`, then `second`), both width×height. */
export async function apng(width: number, height: number, first: string, second: string): Promise<Buffer> {
  const frame = (colour: string) => sharp({ create: { width, height, channels: 4, background: colour } }).png().toBuffer()
  const [a, b] = [chunks(await frame(first)), chunks(await frame(second))]
  const actl = Buffer.alloc(8)
  actl.writeUInt32BE(2, 0)
  const parts: Buffer[] = [PNG_SIGNATURE]
  parts.push(chunk('IHDR', a.find((c) => c.type === 'IHDR')!.data), chunk('acTL', actl), chunk('fcTL', frameControl(0, width, height)))
  for (const c of a.filter((c) => c.type === 'IDAT')) parts.push(chunk('IDAT', c.data))
  parts.push(chunk('fcTL', frameControl(1, width, height)))
  let sequence = 2
  for (const c of b.filter((c) => c.type === 'IDAT')) {
    const seq = Buffer.alloc(4)
    seq.writeUInt32BE(sequence++)
    parts.push(chunk('fdAT', Buffer.concat([seq, c.data])))
  }
  parts.push(chunk('IEND', Buffer.alloc(0)))
  return Buffer.concat(parts)
}

/** A two-frame animated GIF or WebP, written by sharp from a two-page stack. */
export async function animated(format: 'gif' | 'webp', width: number, height: number, first: string, second: string): Promise<Buffer> {
  const frame = (colour: string) => sharp({ create: { width, height, channels: 4, background: colour } }).raw().toBuffer()
  const stack = Buffer.concat([await frame(first), await frame(second)])
  const pipeline = sharp(stack, { raw: { width, height: height * 2, channels: 4, pageHeight: height } } as never)
  return format === 'gif' ? pipeline.gif({ loop: 0, delay: [100, 100] }).toBuffer() : pipeline.webp({ loop: 0, delay: [100, 100], lossless: true }).toBuffer()
}
