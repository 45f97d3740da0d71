// The lossless PNG every tool answers with: rows Up-filtered four bytes at a time, deflated in
// segments on several libuv threads at once, and the segments joined into the one zlib stream PNG
// wants (each but the last ends on a byte boundary with a sync flush, and their Adler-32 checksums
// are combined), as pigz does. Figures in docs/decisions/037 and 038.
import os from 'node:os'
import zlib from 'node:zlib'

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
/** zlib hands over its output in pieces of this size. */
const DEFLATE_CHUNK_BYTES = 256 * 1024
/** Filtered rows deflated as one segment: large enough that restarting the dictionary costs nothing measurable. */
const SEGMENT_BYTES = 4 * 1024 * 1024
const PNG_FILTER_UP = 2
/**
 * zlib level for the image data. With the Up filter, level 2 was within about 10% of the size of
 * libvips' adaptive filtering at level 3 at a fraction of its time (docs/decisions/037); level 1
 * takes about 18% less time again for files 4-6% larger (docs/decisions/038).
 */
const PNG_DEFLATE_LEVEL = 1
const ADLER_MODULUS = 65521
/** A sync flush ends with an empty stored block; Z_FINISH then adds an empty fixed block (0x03 0x00). */
const SYNC_FLUSH_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff, 0x03, 0x00])
const LITTLE_ENDIAN = os.endianness() === 'LE'

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

/** A cutout's alpha: a matte value times the picture's own alpha (the matte itself where the picture is opaque). */
export function cutoutAlpha(matte: number, own: number): number {
  return own === 255 ? matte : Math.round((matte * own) / 255)
}

/** Four byte-wise subtractions (mod 256) at once: no borrow crosses from one byte into the next. */
function upDiff(word: number, above: number): number {
  return ((word | 0x80808080) - (above & 0x7f7f7f7f)) ^ ((word ^ ~above) & 0x80808080)
}

export function isOpaqueRgba(data: Buffer): boolean {
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return false
  return true
}

/** Writes the Up-filtered scanlines from..to (exclusive) of the output image into `out`. */
type RowFilter = (from: number, to: number, out: Buffer) => void

/**
 * The row filter for this image's layout: whole 32-bit words where the rows allow it (aligned,
 * little-endian), else byte by byte. The Up filter of the first row subtracts zeros.
 */
function rowFilter(image: PngSource, outChannels: number, alpha: Uint8Array | undefined): RowFilter {
  const { data, width, channels } = image
  const rowIn = width * channels
  const rowOut = width * outChannels
  const aligned = LITTLE_ENDIAN && data.byteOffset % 4 === 0
  const words = aligned ? new Uint32Array(data.buffer, data.byteOffset, data.length >>> 2) : null

  if (words && alpha && channels === 4) {
    // The picture's colour with the cutout's alpha in the top byte (all four bytes 0 where that is 0);
    // the composed row above is kept.
    let above = new Uint32Array(width)
    let current = new Uint32Array(width)
    const scratch = new Uint32Array(width)
    const scratchBytes = Buffer.from(scratch.buffer)
    let nextRow = 0
    return (from, to, out) => {
      if (from !== nextRow) throw new Error('rows must be filtered in order')
      let o = 0
      for (let y = from; y < to; y++) {
        const base = y * width
        for (let x = 0; x < width; x++) {
          const source = words[base + x]
          const a = cutoutAlpha(alpha[base + x], source >>> 24)
          const word = a === 0 ? 0 : ((source & 0x00ffffff) | (a << 24)) >>> 0
          current[x] = word
          scratch[x] = upDiff(word, above[x])
        }
        out[o++] = PNG_FILTER_UP
        o += scratchBytes.copy(out, o, 0, rowOut)
        const swap = above
        above = current
        current = swap
      }
      nextRow = to
    }
  }
  if (alpha) {
    // Not word-aligned: compose a copy once, then filter it like any image.
    const composed = Buffer.from(data)
    for (let p = 0, i = 3; p < alpha.length; p++, i += 4) {
      composed[i] = cutoutAlpha(alpha[p], composed[i])
      if (composed[i] === 0) composed.fill(0, i - 3, i)
    }
    return rowFilter({ ...image, data: composed }, outChannels, undefined)
  }
  if (words && outChannels === channels && rowIn % 4 === 0) {
    const rowWords = rowIn >>> 2
    const scratch = new Uint32Array(rowWords)
    const scratchBytes = Buffer.from(scratch.buffer)
    return (from, to, out) => {
      let o = 0
      for (let y = from; y < to; y++) {
        const base = y * rowWords
        if (y === 0) scratch.set(words.subarray(0, rowWords))
        else for (let k = 0; k < rowWords; k++) scratch[k] = upDiff(words[base + k], words[base + k - rowWords])
        out[o++] = PNG_FILTER_UP
        o += scratchBytes.copy(out, o, 0, rowOut)
      }
    }
  }
  if (words && channels === 4 && outChannels === 3) {
    // Colour without alpha: three bytes of each word.
    return (from, to, out) => {
      let o = 0
      for (let y = from; y < to; y++) {
        out[o++] = PNG_FILTER_UP
        const base = y * width
        for (let x = 0; x < width; x++) {
          const diff = y === 0 ? words[base + x] : upDiff(words[base + x], words[base + x - width])
          out[o++] = diff
          out[o++] = diff >>> 8
          out[o++] = diff >>> 16
        }
      }
    }
  }
  return (from, to, out) => {
    let o = 0
    for (let y = from; y < to; y++) {
      out[o++] = PNG_FILTER_UP
      const row = y * rowIn
      for (let i = row, end = row + rowIn; i < end; i += channels) {
        for (let k = 0; k < outChannels; k++) out[o++] = y === 0 ? data[i + k] : data[i + k] - data[i + k - rowIn]
      }
    }
  }
}

interface DeflatedSegment {
  /** The zlib header (the same for every segment: same settings). */
  header: Buffer
  /** Raw deflate blocks; all but the last segment's end with a sync flush and are not final. */
  body: Buffer
  adler: number
}

/**
 * Deflates one segment as a zlib stream on the thread pool. A segment other than the last is
 * sync-flushed before it is finished, so its blocks end on a byte boundary and only an empty final
 * block follows them; that block and the trailer are cut off, and the trailer's checksum kept.
 */
function deflateSegment(data: Buffer, last: boolean): Promise<DeflatedSegment> {
  return new Promise((resolve, reject) => {
    const deflater = zlib.createDeflate({ level: PNG_DEFLATE_LEVEL, memLevel: 9, chunkSize: DEFLATE_CHUNK_BYTES })
    const chunks: Buffer[] = []
    deflater.on('data', (chunk: Buffer) => chunks.push(chunk))
    deflater.on('error', reject)
    deflater.on('end', () => {
      const stream = Buffer.concat(chunks)
      const adler = stream.readUInt32BE(stream.length - 4)
      const header = stream.subarray(0, 2)
      if (last) return resolve({ header, body: stream.subarray(2, stream.length - 4), adler })
      const tail = stream.subarray(stream.length - 4 - SYNC_FLUSH_TAIL.length, stream.length - 4)
      if (!tail.equals(SYNC_FLUSH_TAIL)) return reject(new Error('zlib ended a flushed segment unexpectedly'))
      resolve({ header, body: stream.subarray(2, stream.length - 4 - 2), adler })
    })
    deflater.write(data)
    // end() only after the flush is done: called at once, Node folds the flush into the finish.
    if (last) deflater.end()
    else deflater.flush(zlib.constants.Z_SYNC_FLUSH, () => deflater.end())
  })
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

/**
 * Lossless 8-bit PNG without metadata (no EXIF, ICC or XMP chunk is ever written, so nothing of
 * the upload's metadata survives); the alpha channel is dropped when every pixel is opaque.
 * Written here rather than by libvips: its adaptive filtering took most of a 12 MP tool run's
 * time outside the model, and libpng deflates on one thread. Segments are filtered on the main
 * thread while earlier ones are deflated on the thread pool, at most one more than the cores in
 * flight, so only a few segments of filtered rows are held at once.
 */
export async function encodePng(image: PngSource, options: PngOptions = {}): Promise<Buffer> {
  const { width, height } = image
  const alpha = image.channels === 4 ? options.alpha : undefined
  const dropAlpha = image.channels === 4 && !alpha && !options.keepAlpha && isOpaqueRgba(image.data)
  const outChannels = dropAlpha ? 3 : image.channels
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = PNG_COLOUR_TYPE[outChannels]!
  // compression, filter method and interlace stay 0

  const rowBytes = width * outChannels + 1
  const segmentRows = Math.max(1, options.segmentRows ?? Math.floor(SEGMENT_BYTES / rowBytes))
  const filter = rowFilter(image, outChannels, alpha)
  const inFlightLimit = os.availableParallelism() + 1
  const pending: Promise<DeflatedSegment>[] = []
  const segments: DeflatedSegment[] = []
  const lengths: number[] = []
  // A deflated segment's rows are written over by a later one: a few buffers instead of one per segment.
  const inputs: Buffer[] = []
  const spare: Buffer[] = []
  const settleNext = async () => {
    segments.push(await pending[segments.length])
    spare.push(inputs[segments.length - 1])
  }
  for (let y = 0; y < height; y += segmentRows) {
    const to = Math.min(height, y + segmentRows)
    const rows = (spare.pop() ?? Buffer.allocUnsafe(rowBytes * segmentRows)).subarray(0, rowBytes * (to - y))
    filter(y, to, rows)
    lengths.push(rows.length)
    inputs.push(rows)
    const job = deflateSegment(rows, to === height)
    job.catch(() => {}) // awaited below, in order; this only keeps a later failure from being reported as unhandled first
    pending.push(job)
    if (pending.length - segments.length >= inFlightLimit) await settleNext()
  }
  while (segments.length < pending.length) await settleNext()

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
