// An image thread (image-threads.server.ts): filters and deflates the segments of rows png.server.ts
// hands it, and writes bands of the remover's upscaled matte, so that JavaScript-heavy work on a
// large image runs on every core instead of only the main thread's (docs/decisions/077). Plain
// JavaScript, found beside the built server like the inference thread.
//
// Protocol (request-thread.server.ts; ArrayBuffers are transferred both ways):
//   { op: 'segment', id, data: Uint8Array, alpha?: Uint8Array, width, rows, channels, outChannels,
//     first: 0 | 1, last: boolean }
//     `data` (and `alpha`, a cutout's matte) hold `rows` rows; when `first` is 1 the first of them is
//     the row above the segment, only read by the Up filter.
//     → { id, ok: true, header: Uint8Array, body: Uint8Array, adler, returned: ArrayBuffer[] }
//     `data` and `alpha` are copies (their buffers handed back in `returned` for the next segment's
//     copy), or views of shared memory.
//   { op: 'upscale', id, matte: Uint8Array, matteWidth, matteHeight, width, height, states, needed,
//     tileRowFrom, tileRowTo, out: SharedArrayBuffer, mask: SharedArrayBuffer, lookForForeground }
//     writes those tile rows of the upscaled matte into `out`, their mask into `mask` (matte-tiles.mjs)
//     → { id, ok: true, foreground }
//   { op: 'sample', id, alpha, rgba, width, height, rects, sampling, out, colours? } (views of shared memory)
//     samples those rects of the matte's uncertain band (matte-edges.mjs sampleEdgesRect) into `out`
//     and `colours` → { id, ok: true }
//   { op: 'crash' } ends the thread with an uncaught error (tests of the pool's crash handling).
import { sampleEdgesRect } from './matte-edges.mjs'
import { writeTileRows } from './matte-tiles.mjs'
import { deflateSegment, filteredRowBytes, rowFilter } from './png-encoding.mjs'
import { serveRequests } from '../../../utils/serve-requests.mjs'

/** Zlib hands small outputs back in Node's shared 8 KB pool: only a buffer of its own may be transferred. */
const ownsBuffer = (/** @type {Uint8Array} */ bytes) => bytes.buffer.byteLength > Buffer.poolSize

/** Buffers for filtered rows, kept for the next segment: fresh ones cost page faults and collections. */
const spareRows = /** @type {Buffer[]} */ ([])
const SPARE_ROWS_KEPT = 2

serveRequests(async (message) => {
  if (message.op === 'segment') return encodeSegment(message)
  if (message.op === 'upscale') return upscaleBand(message)
  if (message.op === 'sample') return sampleRects(message)
  throw new Error(`unknown image thread request ${message.op}`)
})

/** @param {any} message */
async function encodeSegment(message) {
  const { width, rows, channels, outChannels, first, last } = message
  const data = Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength)
  const alpha = message.alpha ? new Uint8Array(message.alpha.buffer, message.alpha.byteOffset, message.alpha.byteLength) : undefined
  const size = filteredRowBytes(width, outChannels) * (rows - first)
  const spare = spareRows.findIndex((buffer) => buffer.length >= size)
  const buffer = spare >= 0 ? spareRows.splice(spare, 1)[0] : Buffer.allocUnsafeSlow(size)
  const filtered = buffer.subarray(0, size)
  rowFilter({ data, width, height: rows, channels }, outChannels, alpha)(first, rows, filtered)
  const segment = await deflateSegment(filtered, last).finally(() => {
    if (spareRows.length < SPARE_ROWS_KEPT) spareRows.push(buffer)
  })
  // The copies of rows (and matte) given go back too, for the encoder to copy the next segment into
  // (not shared memory: that is the caller's picture).
  const returned = [message.data, message.alpha].filter((bytes) => bytes && bytes.buffer instanceof ArrayBuffer).map((bytes) => bytes.buffer)
  const transfer = ownsBuffer(segment.body) ? [segment.body.buffer, ...returned] : returned
  return { answer: { ...segment, returned }, transfer }
}

/** @param {any} message */
async function upscaleBand(message) {
  const { matteWidth, matteHeight, width, height, states, needed, tileRowFrom, tileRowTo, lookForForeground } = message
  const matte = { data: message.matte, width: matteWidth, height: matteHeight, channels: 1 }
  const out = new Uint8Array(message.out)
  const mask = new Uint8Array(message.mask)
  const foreground = writeTileRows({ matte, width, height, states, needed }, tileRowFrom, tileRowTo, out, mask, lookForForeground)
  return { answer: { foreground }, transfer: [] }
}

/** @param {any} message */
async function sampleRects(message) {
  const { alpha, rgba, width, height, rects, sampling, out, colours } = message
  for (const rect of rects) sampleEdgesRect(alpha, rgba, width, height, rect, sampling, out, colours)
  return { answer: {}, transfer: [] }
}
