// Whether a file holds all the bytes its own structure announces: a PNG reaches its IEND chunk, a JPEG its
// end-of-image marker after the scan, a WebP the length its RIFF header states. The header alone (all that
// is read before a run is charged) says nothing of the rest: a PNG that claims 16384×1 and then ends passed
// the door, was charged, failed in the decoder and was refunded. This walk costs microseconds and refuses it
// before the charge. A PNG's image data is inflated too: a whole chunk structure can still hold fewer
// pixels than its header claims (a 16384×1 header on a 64×48 picture's data). A TIFF holds every strip or
// tile its directories point at. Formats not listed (GIF, AVIF: no tool takes them) are left to the decoder.
import { constants, createInflate } from 'node:zlib'

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/**
 * The door inflates a PNG's image data in pieces of this size, counted and dropped: a 12 MP RGBA picture
 * (48 MB filtered) takes about fifty trips to the thread pool and never more than one piece of memory.
 */
const PNG_INFLATE_PIECE_BYTES = 1 << 20
/** Samples per pixel of each PNG colour type (grey, RGB, palette, grey + alpha, RGBA). */
const PNG_SAMPLES: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
/** Adam7's seven passes: first column and row, then the steps between them. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const

interface PngHeader {
  width: number
  height: number
  bitDepth: number
  colourType: number
  interlaced: boolean
}

/** The bytes a PNG's image data inflates to: each row's filter byte and its packed samples, pass by pass when interlaced. */
export function pngFilteredBytes(header: PngHeader): number | null {
  const samples = PNG_SAMPLES[header.colourType]
  if (samples === undefined) return null
  const bits = samples * header.bitDepth
  const rows = (width: number, height: number) => (width > 0 && height > 0 ? height * (1 + Math.ceil((width * bits) / 8)) : 0)
  if (!header.interlaced) return rows(header.width, header.height)
  let total = 0
  for (const [x0, y0, dx, dy] of ADAM7) total += rows(Math.ceil((header.width - x0) / dx), Math.ceil((header.height - y0) / dy))
  return total
}

/**
 * Whether the image data inflates to all the pixels the header claims (a truncated stream gives what it has).
 * Inflated on the thread pool, and stopped as soon as every pixel is there: what lies beyond (a zlib stream
 * that goes on, or is damaged after the last row) is left to the decoder, as it reads no further either.
 */
function pngDataIsWhole(header: PngHeader, data: Buffer[]): Promise<boolean> {
  const expected = pngFilteredBytes(header)
  if (expected === null || expected === 0) return Promise.resolve(false)
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: Math.max(64, Math.min(PNG_INFLATE_PIECE_BYTES, expected)) })
    let inflated = 0
    const settle = (whole: boolean) => {
      resolve(whole)
      inflate.destroy()
    }
    inflate.on('data', (piece: Buffer) => {
      inflated += piece.length
      if (inflated >= expected) settle(true)
    })
    inflate.on('end', () => settle(inflated >= expected))
    inflate.on('error', () => settle(inflated >= expected))
    // One write: encoders cut the data in chunks of 8 KB, and a write each costs more than the copy.
    inflate.end(Buffer.concat(data))
  })
}

async function pngIsComplete(bytes: Uint8Array): Promise<boolean> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) return false
  let header: PngHeader | null = null
  const data: Buffer[] = []
  // Each chunk: length (4), type (4), data (length), CRC (4). The walk stops at IEND; a chunk that runs past
  // the end of the file is a truncation.
  for (let at = 8; at + 12 <= bytes.length; ) {
    const length = view.getUint32(at)
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!)
    if (at + 12 + length > bytes.length) return false
    if (type === 'IHDR' && length >= 13) {
      header = { width: view.getUint32(at + 8), height: view.getUint32(at + 12), bitDepth: bytes[at + 16]!, colourType: bytes[at + 17]!, interlaced: bytes[at + 20] === 1 }
    }
    if (type === 'IDAT') data.push(Buffer.from(bytes.buffer, bytes.byteOffset + at + 8, length))
    if (type === 'IEND') return header !== null && data.length > 0 && pngDataIsWhole(header, data)
    at += 12 + length
  }
  return false
}

function jpegIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return false
  // Walk the segments before the first scan by their lengths: an EXIF thumbnail inside APP1 is a whole JPEG
  // of its own, and a plain search would find its markers.
  let at = 2
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return false
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at += 1 // fill byte
      continue
    }
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!
    if (marker === 0xda) {
      // The scan's entropy-coded data never holds 0xFF 0xD9 (a 0xFF there is stuffed with 0x00), so the last
      // end-of-image marker after the first scan closes the image. Bytes after it (some cameras append data)
      // are allowed, as decoders allow them.
      for (let i = bytes.length - 2; i >= at + 2 + length; i--) {
        if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true
      }
      return false
    }
    at += 2 + length
  }
  return false
}

function webpIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  // RIFF's size counts everything after its own 8 bytes.
  return view.getUint32(4, true) + 8 <= bytes.length
}

/** TIFF tags that point at the picture's data, in pairs: where each piece starts, and how long it is. */
const TIFF_DATA_TAGS = [
  [273, 279], // StripOffsets, StripByteCounts
  [324, 325], // TileOffsets, TileByteCounts
] as const
/** Bytes per value of each classic TIFF field type (BYTE, ASCII, SHORT, LONG, RATIONAL, … IFD). */
const TIFF_TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 }
/** More directories than any real file has (a loop of directory offsets must end). */
const TIFF_MAX_DIRECTORIES = 1024

/**
 * Every directory of a classic TIFF lies in the file, and every strip or tile it names ends inside it.
 * BigTIFF (version 43) is left to the decoder.
 */
function tiffIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false
  const little = bytes[0] === 0x49 && bytes[1] === 0x49
  if (!little && !(bytes[0] === 0x4d && bytes[1] === 0x4d)) return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const u16 = (at: number) => view.getUint16(at, little)
  const u32 = (at: number) => view.getUint32(at, little)
  if (u16(2) === 43) return true
  if (u16(2) !== 42) return false
  /** Where a field's values start (inline when they fit in 4 bytes) and how many bytes; null when outside the file. */
  const span = (entry: number): { start: number; size: number; count: number } | null => {
    const size = TIFF_TYPE_SIZE[u16(entry + 2)]
    // A type this reader does not know is skipped by decoders too: its length cannot be told.
    if (size === undefined) return { start: entry + 8, size: 0, count: 0 }
    const count = u32(entry + 4)
    const start = count * size <= 4 ? entry + 8 : u32(entry + 8)
    return start + count * size > bytes.length ? null : { start, size, count }
  }
  /** An offset or count field's values (BYTE, SHORT or LONG); null when outside the file or of another type. */
  const values = (entry: number): number[] | null => {
    const at = span(entry)
    if (!at || ![1, 2, 4].includes(at.size)) return null
    const { start, size, count } = at
    return Array.from({ length: count }, (_, i) => (size === 1 ? bytes[start + i]! : size === 2 ? u16(start + i * 2) : u32(start + i * 4)))
  }
  const seen = new Set<number>()
  let directory = u32(4)
  if (directory === 0) return false
  while (directory !== 0) {
    if (seen.has(directory) || seen.size >= TIFF_MAX_DIRECTORIES || directory + 2 > bytes.length) return false
    seen.add(directory)
    const entries = u16(directory)
    const end = directory + 2 + entries * 12
    if (end + 4 > bytes.length) return false
    const fields = new Map<number, number>()
    for (let e = directory + 2; e < end; e += 12) {
      if (!span(e)) return false
      fields.set(u16(e), e)
    }
    let pieces = 0
    for (const [offsetTag, countTag] of TIFF_DATA_TAGS) {
      const offsetsAt = fields.get(offsetTag)
      const countsAt = fields.get(countTag)
      if (offsetsAt === undefined || countsAt === undefined) continue
      const offsets = values(offsetsAt)
      const counts = values(countsAt)
      if (!offsets || !counts || offsets.length !== counts.length) return false
      if (offsets.some((offset, i) => offset + counts[i]! > bytes.length)) return false
      pieces += offsets.length
    }
    if (pieces === 0) return false
    directory = u32(end)
  }
  return true
}

/** Whether the file is whole by its own structure; `format` is sharp's name for it (png, jpeg, webp, …). */
export async function isFileComplete(bytes: Uint8Array, format: string | undefined): Promise<boolean> {
  if (format === 'png') return pngIsComplete(bytes)
  if (format === 'jpeg') return jpegIsComplete(bytes)
  if (format === 'webp') return webpIsComplete(bytes)
  if (format === 'tiff') return tiffIsComplete(bytes)
  return true
}
