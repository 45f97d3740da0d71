// A batch zip's files counted in the browser, before the upload. A zip ends with its central
// directory, which names every entry and says where its bytes start, so only the directory and each
// entry's first kilobyte are read (and inflated) here, never the whole zip. Each entry that is one
// of the batch's files (zip-entries.ts, the server's rule) is sniffed as a chosen file is
// (file-checks.ts). The batch screen can then price and check a zip as it does listed files: a zip
// past the file limit, the balance or a monthly cap is refused before a long upload.
// What this cannot read (ZIP64, encrypted entries, a damaged directory) is left uncounted, and the
// server, which reads every zip anyway (zip.server.ts), decides.
import { TOO_MANY_FILES_MESSAGE } from '~/catalog/batches'
import type { ToolDefinition } from '~/catalog/tools'
import { SNIFF_BYTES, sniffType } from '~/features/tools/ui/file-checks'
import { entryTooLargeMessage, skipReason, tooManyEntriesMessage, ZIP_TOO_LARGE_MESSAGE } from '../zip-entries'

export interface ZipListing {
  /** Those of the zip's files that the tool takes (type from their first bytes): what the batch costs. */
  runnable: number
  /** Why the server will refuse the whole zip, in its words, or null. */
  problem: string | null
}

export interface ZipLimits {
  /** Entries of any kind. */
  maxEntries: number
  maxFiles: number
  /** One file's limit, for the tool. */
  maxFileBytes: number
  /** The batch's limit in all. */
  maxTotalBytes: number
}

interface DirectoryEntry {
  name: string
  flags: number
  method: number
  compressedSize: number
  uncompressedSize: number
  localOffset: number
}

const END_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const END_BYTES = 22
const CENTRAL_BYTES = 46
const LOCAL_BYTES = 30
/** The end record may be followed by a comment of up to 64 KiB. */
const ZIP_TAIL_BYTES = END_BYTES + 0xffff
/** A directory larger than this is not read here: a hundred files take a few kilobytes. */
const MAX_DIRECTORY_BYTES = 1024 * 1024
/** Compressed bytes inflated for an entry's first SNIFF_BYTES: far more than deflate needs for them. */
const HEAD_INPUT_BYTES = 16 * 1024
const STORED = 0
const DEFLATED = 8
const ENCRYPTED_FLAG = 0x1
/** A 32-bit size or offset of all ones, or 65535 entries: the real value is in a ZIP64 record. */
const ZIP64_MARK = 0xffffffff

/** The central directory's place and entry count, from the zip's last bytes, or null (none found, or ZIP64). */
export function findDirectory(tail: Uint8Array): { offset: number; size: number; entries: number } | null {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength)
  for (let at = tail.length - END_BYTES; at >= 0; at--) {
    if (view.getUint32(at, true) !== END_SIGNATURE) continue
    const entries = view.getUint16(at + 10, true)
    const size = view.getUint32(at + 12, true)
    const offset = view.getUint32(at + 16, true)
    return entries === 0xffff || size === ZIP64_MARK || offset === ZIP64_MARK ? null : { offset, size, entries }
  }
  return null
}

/** The directory's entries, or null when it is not what its end record says. */
function readDirectory(directory: Uint8Array, count: number): DirectoryEntry[] | null {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength)
  const entries: DirectoryEntry[] = []
  let at = 0
  for (let n = 0; n < count; n++) {
    if (at + CENTRAL_BYTES > directory.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) return null
    const nameLength = view.getUint16(at + 28, true)
    const next = at + CENTRAL_BYTES + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true)
    if (next > directory.length) return null
    const nameBytes = directory.subarray(at + CENTRAL_BYTES, at + CENTRAL_BYTES + nameLength)
    entries.push({
      // Read byte by byte: the rule looks only at '/', '.' and "__MACOSX", and neither UTF-8 nor the
      // zip's old code page uses those bytes inside another character. A backslash is a slash, as the
      // server's reader takes it.
      name: String.fromCharCode(...nameBytes).replaceAll('\\', '/'),
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    })
    at = next
  }
  return entries
}

/**
 * The entry's first SNIFF_BYTES as stored or inflated, or null when they cannot be read here (a
 * browser without DecompressionStream, a local header that is not one, nothing inflated). A stream
 * cut short on purpose ends in an error once what it held has come out: that error is expected.
 */
async function entryHead(zip: Blob, entry: DirectoryEntry): Promise<Uint8Array | null> {
  const local = new DataView(await zip.slice(entry.localOffset, entry.localOffset + LOCAL_BYTES).arrayBuffer())
  if (local.byteLength < LOCAL_BYTES || local.getUint32(0, true) !== LOCAL_SIGNATURE) return null
  // The local header's name and extra field may differ in length from the directory's.
  const start = entry.localOffset + LOCAL_BYTES + local.getUint16(26, true) + local.getUint16(28, true)
  if (entry.method === STORED) return new Uint8Array(await zip.slice(start, start + Math.min(entry.compressedSize, SNIFF_BYTES)).arrayBuffer())
  if (typeof DecompressionStream === 'undefined') return null
  const input = zip.slice(start, start + Math.min(entry.compressedSize, HEAD_INPUT_BYTES))
  const reader = input.stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader()
  const chunks: Uint8Array[] = []
  let length = 0
  try {
    while (length < SNIFF_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      length += value.length
    }
  } catch {
    // Cut short, or not deflate at all: what came out is all there is.
  } finally {
    void reader.cancel().catch(() => undefined)
  }
  if (length === 0) return null
  const head = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    head.set(chunk, offset)
    offset += chunk.length
  }
  return head.subarray(0, SNIFF_BYTES)
}

/** Whether the tool takes the entry (its first bytes are one of the tool's types), or null: unreadable here. */
async function toolTakes(zip: Blob, entry: DirectoryEntry, tool: ToolDefinition): Promise<boolean | null> {
  if (entry.uncompressedSize === 0) return false
  const head = await entryHead(zip, entry)
  if (!head) return null
  const type = sniffType(head)
  return Boolean(type && tool.acceptedTypes.includes(type))
}

/**
 * What the zip holds for the tool, or null when it cannot be counted here: one entry that cannot be
 * read leaves the whole zip to the server, so a zip is never refused for what this could not read.
 * Its files are walked in the zip's order, as the server reads them, so the first limit passed is the
 * one the server names.
 */
export async function listZip(zip: Blob, tool: ToolDefinition, limits: ZipLimits): Promise<ZipListing | null> {
  const tailStart = Math.max(0, zip.size - ZIP_TAIL_BYTES)
  const place = findDirectory(new Uint8Array(await zip.slice(tailStart).arrayBuffer()))
  if (!place || place.size > MAX_DIRECTORY_BYTES || place.offset + place.size > zip.size) return null
  const entries = readDirectory(new Uint8Array(await zip.slice(place.offset, place.offset + place.size).arrayBuffer()), place.entries)
  if (!entries) return null
  const files: DirectoryEntry[] = []
  let total = 0
  for (const [index, entry] of entries.entries()) {
    if (index >= limits.maxEntries) return { runnable: 0, problem: tooManyEntriesMessage(limits.maxEntries) }
    if (skipReason(entry.name)) continue
    if (files.length >= limits.maxFiles) return { runnable: 0, problem: TOO_MANY_FILES_MESSAGE }
    if (entry.flags & ENCRYPTED_FLAG || (entry.method !== STORED && entry.method !== DEFLATED) || entry.uncompressedSize === ZIP64_MARK) return null
    if (entry.uncompressedSize > limits.maxFileBytes) return { runnable: 0, problem: entryTooLargeMessage(entry.name) }
    total += entry.uncompressedSize
    if (total > limits.maxTotalBytes) return { runnable: 0, problem: ZIP_TOO_LARGE_MESSAGE }
    files.push(entry)
  }
  let runnable = 0
  for (const entry of files) {
    const takes = await toolTakes(zip, entry, tool)
    if (takes === null) return null
    if (takes) runnable++
  }
  return { runnable, problem: null }
}
