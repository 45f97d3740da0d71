// The lossless PNG every tool answers with: rows Up-filtered four bytes at a time and deflated in
// segments, and the segments joined into the one zlib stream PNG wants (each but the last ends on a
// byte boundary with a sync flush, and their Adler-32 checksums are combined), as pigz does. An
// image of more than one segment is filtered and deflated in the image threads (image-threads.server.ts),
// so the row filter runs on every core. Figures in docs/decisions/037, 038 and 077.
import os from 'node:os'
import zlib from 'node:zlib'
import { imageThreads } from './image-threads.server'
import { deflateSegment, filteredRowBytes, rowFilter, type DeflatedSegment } from './png-encoding.mjs'

export { cutoutAlpha } from './png-encoding.mjs'

/** Raw pixels, row-major; `channels` bytes a pixel. */
export interface PngSource {
  data: Buffer
  width: number
  height: number
  channels: 1 | 3 | 4
}

export interface PngOptions {
  /** Keep a 4th channel even when every pixel is opaque (else it is dropped). */
  keepAlpha?: boolean
  /**
   * A matte, one byte a pixel (4-channel images): the alpha written is the image's own alpha times
   * the matte (`cutoutAlpha`), so a cutout is encoded straight from the picture and its matte,
   * without an RGBA copy of the image or a pass of its own. A pixel this makes fully transparent is
   * written as 0, 0, 0, 0: what was cut away leaves no trace in the file (docs/decisions/068).
   */
  alpha?: Uint8Array
  /** Rows per deflated segment (tests); by default about SEGMENT_BYTES of filtered rows. */
  segmentRows?: number
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
/** PNG colour type by channel count: grey, RGB, RGBA. */
const PNG_COLOUR_TYPE: Record<number, number> = { 1: 0, 3: 2, 4: 6 }
/** Filtered rows deflated as one segment: large enough that restarting the dictionary costs nothing measurable. */
const SEGMENT_BYTES = 4 * 1024 * 1024
const ADLER_MODULUS = 65521

/** A PNG chunk of the given pieces, as the buffers to write in order (the pieces are not copied). */
function pngChunk(type: string, ...pieces: Uint8Array[]): Uint8Array[] {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(
    pieces.reduce((sum, piece) => sum + piece.length, 0),
    0,
  )
  head.write(type, 4, 'latin1')
  let crc = zlib.crc32(head.subarray(4))
  for (const piece of pieces) crc = zlib.crc32(piece, crc)
  const tail = Buffer.alloc(4)
  tail.writeUInt32BE(crc)
  return [head, ...pieces, tail]
}

export function isOpaqueRgba(data: Buffer): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return false
  return true
}

/**
 * A copy of `bytes` in memory the image threads share: an image encoded from it is read there by every
 * thread, where one in ordinary memory is copied to them a segment at a time (forThread).
 */
export function sharedCopy(bytes: Uint8Array): Buffer {
  const copy = Buffer.from(new SharedArrayBuffer(bytes.length))
  copy.set(bytes)
  return copy
}

/**
 * Bytes start..end for a thread: a view when they are in shared memory (the threads read them
 * there), else a copy, in a spare buffer the threads gave back if one is large enough (fresh
 * memory costs page faults, and collections), else in a new one.
 */
function forThread(bytes: Uint8Array, start: number, end: number, spare: ArrayBuffer[]): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start)
  const size = end - start
  const found = spare.findIndex((buffer) => buffer.byteLength >= size)
  const copy = found >= 0 ? new Uint8Array(spare.splice(found, 1)[0], 0, size) : new Uint8Array(new ArrayBuffer(size))
  copy.set(bytes.subarray(start, end))
  return copy
}

/**
 * Rows from..to filtered and deflated in an image thread: it gets them, and the row above (the Up
 * filter reads it), then hands the deflated bytes back, and the buffers of any copies into `spare`.
 */
async function deflateRowsInThread(
  image: PngSource,
  outChannels: number,
  alpha: Uint8Array | undefined,
  from: number,
  to: number,
  spare: ArrayBuffer[],
): Promise<DeflatedSegment> {
  const { width, height, channels } = image
  const first = from > 0 ? 1 : 0
  const rowBytes = width * channels
  const data = forThread(image.data, (from - first) * rowBytes, to * rowBytes, spare)
  const matte = alpha && forThread(alpha, (from - first) * width, to * width, spare)
  const transfer = [data, matte].flatMap((bytes) => (bytes && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : []))
  const answer = await imageThreads()
    .pick()
    .request({ op: 'segment', data, alpha: matte, width, rows: to - from + first, channels, outChannels, first, last: to === height }, transfer)
  spare.push(...(answer.returned as ArrayBuffer[]))
  const bytes = (view: unknown) => {
    const v = view as Uint8Array
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  }
  return { header: bytes(answer.header), body: bytes(answer.body), adler: answer.adler as number }
}

/** Adler-32 of two byte strings joined, from each one's checksum and the second one's length. */
export function combineAdler32(first: number, second: number, secondLength: number): number {
  const a1 = first & 0xffff
  const b1 = first >>> 16
  const a2 = second & 0xffff
  const b2 = second >>> 16
  // A is 1 + the byte sum; B is the sum of A after each byte, so the second part adds (A1 - 1) once per byte.
  const a = (a1 + a2 + ADLER_MODULUS - 1) % ADLER_MODULUS
  const b = (b1 + b2 + ((secondLength % ADLER_MODULUS) * ((a1 + ADLER_MODULUS - 1) % ADLER_MODULUS))) % ADLER_MODULUS
  return ((b << 16) | a) >>> 0
}

/** A PNG being written while its rows are finished, in order, from the top (`startPng`). */
export interface PngInProgress {
  /** Rows 0..upTo−1 are final: their pixels (and matte) will not change again. */
  rowsReady(upTo: number): void
  /** The PNG, once every row is ready (finish makes them so). */
  finish(): Promise<Buffer>
}

/**
 * Lossless 8-bit PNG without metadata (no EXIF, ICC or XMP chunk is ever written, so nothing of
 * the upload's metadata survives); the alpha channel is dropped when every pixel is opaque.
 * Written here rather than by libvips: its adaptive filtering took most of a 12 MP tool run's
 * time outside the model, and libpng deflates on one thread. An image of one segment is filtered
 * here and deflated on the thread pool; a larger one goes to the image threads a segment at a
 * time, at most two a core in flight, so only a few segments' copies are held at once.
 */
export async function encodePng(image: PngSource, options: PngOptions = {}): Promise<Buffer> {
  return startPng(image, options).finish()
}

/**
 * encodePng for a picture whose rows are finished from the top while it is being written (the
 * remover's matte, refined band by band): each segment is encoded as soon as its rows, and the row
 * above them, are ready, so the encoding overlaps the work that finishes the rows below.
 */
export function startPng(image: PngSource, options: PngOptions = {}): PngInProgress {
  const { width, height } = image
  const alpha = image.channels === 4 ? options.alpha : undefined
  const dropAlpha = image.channels === 4 && !alpha && !options.keepAlpha && isOpaqueRgba(image.data)
  const outChannels = dropAlpha ? 3 : image.channels
  const rowBytes = filteredRowBytes(width, outChannels)
  const segmentRows = Math.max(1, options.segmentRows ?? Math.floor(SEGMENT_BYTES / rowBytes))
  const oneSegment = segmentRows >= height
  const inFlightLimit = 2 * os.availableParallelism()

  const segments: Promise<DeflatedSegment>[] = []
  const lengths: number[] = []
  // Buffers of the copies handed to the threads, given back: this image's later segments reuse them.
  const spare: ArrayBuffer[] = []
  let ready = 0
  let dispatched = 0
  let inFlight = 0
  const dispatch = () => {
    while (dispatched < height && inFlight < inFlightLimit) {
      const from = dispatched
      const to = Math.min(height, from + segmentRows)
      if (to > ready) return
      const job = oneSegment ? deflateHere(image, outChannels, alpha) : deflateRowsInThread(image, outChannels, alpha, from, to, spare)
      inFlight++
      // A finished segment makes room for the next; failures are met where the segments are awaited.
      job.then(
        () => ((inFlight -= 1), dispatch()),
        () => (inFlight -= 1),
      )
      segments.push(job)
      lengths.push(rowBytes * (to - from))
      dispatched = to
    }
  }
  const rowsReady = (upTo: number) => {
    ready = Math.max(ready, Math.min(height, upTo))
    dispatch()
  }

  return {
    rowsReady,
    async finish() {
      rowsReady(height)
      const done: DeflatedSegment[] = []
      // Each segment that finishes dispatches the next before this loop looks again.
      while (done.length < segments.length) done.push(await segments[done.length])
      return assemblePng(width, height, outChannels, done, lengths)
    },
  }
}

/** The one segment of a small image, filtered on this thread and deflated on the thread pool. */
function deflateHere(image: PngSource, outChannels: number, alpha: Uint8Array | undefined): Promise<DeflatedSegment> {
  const rows = Buffer.allocUnsafe(filteredRowBytes(image.width, outChannels) * image.height)
  rowFilter(image, outChannels, alpha)(0, image.height, rows)
  return deflateSegment(rows, true)
}

/** The PNG file: signature, header, the segments as IDAT chunks (one zlib stream), end. */
function assemblePng(width: number, height: number, outChannels: number, segments: DeflatedSegment[], lengths: number[]): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = PNG_COLOUR_TYPE[outChannels]!
  // compression, filter method and interlace stay 0

  let adler = segments[0].adler
  for (let k = 1; k < segments.length; k++) adler = combineAdler32(adler, segments[k].adler, lengths[k])
  const trailer = Buffer.alloc(4)
  trailer.writeUInt32BE(adler)
  // One IDAT per segment (any split of the zlib stream is valid): the PNG is written in one copy.
  const parts = [PNG_SIGNATURE, ...pngChunk('IHDR', header)]
  segments.forEach((segment, k) => {
    const pieces = [segment.body]
    if (k === 0) pieces.unshift(segment.header)
    if (k === segments.length - 1) pieces.push(trailer)
    parts.push(...pngChunk('IDAT', ...pieces))
  })
  parts.push(...pngChunk('IEND'))
  return Buffer.concat(parts)
}
