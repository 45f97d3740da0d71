// The two steps of writing a PNG's image data that run once per segment of rows: the Up row filter
// (with a cutout's alpha composed in) and the deflate of the filtered rows. Plain JavaScript, shared
// by the encoder (png.server.ts) and the image threads it hands large images to (image-worker.mjs),
// which plain `node` runs as they are, beside the built server (docs/decisions/077).
import os from 'node:os'
import zlib from 'node:zlib'

/**
 * @typedef {object} PngSource Raw pixels, row-major; `channels` bytes a pixel.
 * @property {Buffer} data
 * @property {number} width
 * @property {number} height
 * @property {1 | 3 | 4} channels
 */

/**
 * @typedef {object} DeflatedSegment
 * @property {Buffer} header The zlib header (the same for every segment: same settings).
 * @property {Buffer} body Raw deflate blocks; all but the last segment's end with a sync flush and are not final.
 * @property {number} adler The Adler-32 of the segment's filtered rows.
 */

/** @typedef {(from: number, to: number, out: Buffer) => void} RowFilter Writes the Up-filtered scanlines from..to (exclusive) into `out`. */

/** zlib hands over its output in pieces of this size. */
const DEFLATE_CHUNK_BYTES = 256 * 1024
const PNG_FILTER_UP = 2
/**
 * zlib level for the image data. With the Up filter, level 2 was within about 10% of the size of
 * libvips' adaptive filtering at level 3 at a fraction of its time (docs/decisions/037); level 1
 * takes about 18% less time again for files 4-6% larger (docs/decisions/038).
 */
const PNG_DEFLATE_LEVEL = 1
/** A sync flush ends with an empty stored block; Z_FINISH then adds an empty fixed block (0x03 0x00). */
const SYNC_FLUSH_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff, 0x03, 0x00])
const LITTLE_ENDIAN = os.endianness() === 'LE'

/**
 * A cutout's alpha: a matte value times the picture's own alpha (the matte itself where the picture is opaque).
 * @param {number} matte
 * @param {number} own
 * @returns {number}
 */
export function cutoutAlpha(matte, own) {
  return own === 255 ? matte : Math.round((matte * own) / 255)
}

/**
 * Four byte-wise subtractions (mod 256) at once: no borrow crosses from one byte into the next.
 * @param {number} word
 * @param {number} above
 */
function upDiff(word, above) {
  return ((word | 0x80808080) - (above & 0x7f7f7f7f)) ^ ((word ^ ~above) & 0x80808080)
}

/**
 * A pixel of a cutout as one little-endian word: the picture's colour with the cutout's alpha in
 * the top byte, all four bytes 0 where that alpha is 0 (what was cut away leaves no trace).
 * @param {number} source
 * @param {number} matte
 */
function cutoutWord(source, matte) {
  const a = cutoutAlpha(matte, source >>> 24)
  return a === 0 ? 0 : ((source & 0x00ffffff) | (a << 24)) >>> 0
}

/**
 * The row filter for this image's layout: whole 32-bit words where the rows allow it (aligned,
 * little-endian), else byte by byte. The Up filter of the first row subtracts zeros. Rows may start
 * anywhere: the rows before `from` are only read, as the row above (a segment handed to a thread
 * carries the row above it, so its filter starts at row 1).
 * @param {PngSource} image
 * @param {number} outChannels
 * @param {Uint8Array | undefined} alpha
 * @returns {RowFilter}
 */
export function rowFilter(image, outChannels, alpha) {
  const { data, width, channels } = image
  const rowIn = width * channels
  const rowOut = width * outChannels
  const aligned = LITTLE_ENDIAN && data.byteOffset % 4 === 0
  const words = aligned ? new Uint32Array(data.buffer, data.byteOffset, data.length >>> 2) : null

  if (words && alpha && channels === 4) {
    // Each row is composed first (picture and matte), then Up-filtered against the composed row
    // above, which is kept from one row to the next (composed afresh when rows skip).
    // The matte's words are read from the aligned address at or below its start (a view of a shared
    // matte can start anywhere): matte pixel p is byte p + matteShift of them.
    const matteShift = alpha.byteOffset & 3
    const matteWords = new Uint32Array(alpha.buffer, alpha.byteOffset - matteShift, (alpha.length + matteShift) >>> 2)
    let above = new Uint32Array(width)
    let current = new Uint32Array(width)
    const scratch = new Uint32Array(width)
    const scratchBytes = Buffer.from(scratch.buffer)
    /** @param {number} y @param {Uint32Array} row */
    const compose = (y, row) => {
      const base = y * width
      for (let x = 0; x < width; x++) row[x] = cutoutWord(words[base + x], alpha[base + x])
    }
    /**
     * Row y composed into `row` and Up-filtered against `up` into `diff`, in one pass.
     * @param {number} y @param {Uint32Array} row @param {Uint32Array} up @param {Uint32Array} diff
     */
    const composeAndFilter = (y, row, up, diff) => {
      const base = y * width
      let x = 0
      // Four pixels at a time where the matte is 0 for all four (nothing left), or 255 for all
      // four over opaque pixels (the picture as it is): away from the outline, nearly everywhere.
      for (; x < width && ((base + x + matteShift) & 3) !== 0; x++) diff[x] = upDiff((row[x] = cutoutWord(words[base + x], alpha[base + x])), up[x])
      for (; x + 4 <= width; x += 4) {
        const p = base + x
        const m = matteWords[(p + matteShift) >>> 2]
        let w0 = 0
        let w1 = 0
        let w2 = 0
        let w3 = 0
        if (m !== 0) {
          w0 = words[p]
          w1 = words[p + 1]
          w2 = words[p + 2]
          w3 = words[p + 3]
          if (m !== 0xffffffff || (w0 & w1 & w2 & w3) >>> 24 !== 0xff) {
            w0 = cutoutWord(w0, alpha[p])
            w1 = cutoutWord(w1, alpha[p + 1])
            w2 = cutoutWord(w2, alpha[p + 2])
            w3 = cutoutWord(w3, alpha[p + 3])
          }
        }
        row[x] = w0
        row[x + 1] = w1
        row[x + 2] = w2
        row[x + 3] = w3
        diff[x] = upDiff(w0, up[x])
        diff[x + 1] = upDiff(w1, up[x + 1])
        diff[x + 2] = upDiff(w2, up[x + 2])
        diff[x + 3] = upDiff(w3, up[x + 3])
      }
      for (; x < width; x++) diff[x] = upDiff((row[x] = cutoutWord(words[base + x], alpha[base + x])), up[x])
    }
    let nextRow = 0
    return (from, to, out) => {
      if (from !== nextRow) {
        if (from === 0) above.fill(0)
        else compose(from - 1, above)
      }
      let o = 0
      for (let y = from; y < to; y++) {
        composeAndFilter(y, current, above, scratch)
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

/**
 * Deflates one segment as a zlib stream on the thread pool. A segment other than the last is
 * sync-flushed before it is finished, so its blocks end on a byte boundary and only an empty final
 * block follows them; that block and the trailer are cut off, and the trailer's checksum kept.
 * @param {Buffer} data
 * @param {boolean} last
 * @returns {Promise<DeflatedSegment>}
 */
export function deflateSegment(data, last) {
  return new Promise((resolve, reject) => {
    const deflater = zlib.createDeflate({ level: PNG_DEFLATE_LEVEL, memLevel: 9, chunkSize: DEFLATE_CHUNK_BYTES })
    /** @type {Buffer[]} */
    const chunks = []
    deflater.on('data', (chunk) => chunks.push(chunk))
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

/** Bytes of one filtered scanline (the filter type, then the row). */
export const filteredRowBytes = (/** @type {number} */ width, /** @type {number} */ outChannels) => width * outChannels + 1
