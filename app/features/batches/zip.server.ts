// Reading a batch's zip and writing its results' zip. Reading refuses zip bombs before they cost
// memory: the entry count is capped, each entry's and the total uncompressed size are capped (yauzl
// also checks every entry's real size against its header), folders and hidden files (dot files,
// __MACOSX) are skipped and listed, and only an entry's base name is kept, so no name can reach a path.
import yauzl from 'yauzl'
import yazl from 'yazl'
import { badRequest, tooLarge } from '~/features/jobs/door.server'
import { TOO_MANY_FILES_MESSAGE } from '../../catalog/batches'
import { safeUniqueEntryNames, storableName } from './entry-names'
import { entryBaseName, entryTooLargeMessage, skipReason, tooManyEntriesMessage, ZIP_TOO_LARGE_MESSAGE, type SkippedEntry } from './zip-entries'

export type { SkippedEntry }

export interface ZipLimits {
  /** Files kept at most (beyond it: refused with TOO_MANY_FILES_MESSAGE). */
  maxFiles: number
  /** Entries of any kind read at most (folders and skipped files count too). */
  maxEntries: number
  maxEntryBytes: number
  maxTotalBytes: number
}

export interface NamedBytes {
  name: string
  bytes: Buffer
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04])

export function isZip(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).equals(ZIP_MAGIC)
}

export interface ZipContents {
  files: NamedBytes[]
  skipped: SkippedEntry[]
}

const MAX_LISTED_NAME = 255

export const UNREADABLE_ZIP = 'The zip could not be read: send a valid zip of images.'

export function readZipFiles(zip: Buffer, limits: ZipLimits): Promise<ZipContents> {
  return new Promise((resolve, reject) => {
    // decodeStrings: yauzl refuses absolute names and `..` itself; the base name is kept anyway.
    yauzl.fromBuffer(zip, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (openError, archive) => {
      if (openError || !archive) return reject(badRequest(UNREADABLE_ZIP))
      const files: NamedBytes[] = []
      const skipped: SkippedEntry[] = []
      let entries = 0
      let total = 0
      let done = false
      const fail = (error: Error) => {
        if (done) return
        done = true
        archive.close()
        reject(error)
      }
      archive.on('error', () => fail(badRequest(UNREADABLE_ZIP)))
      archive.on('end', () => {
        if (done) return
        done = true
        resolve({ files, skipped })
      })
      archive.on('entry', (entry: yauzl.Entry) => {
        entries++
        if (entries > limits.maxEntries) return fail(badRequest(tooManyEntriesMessage(limits.maxEntries)))
        const reason = skipReason(entry.fileName)
        if (reason) {
          // A name is kept to a readable length (an entry name may be 64 KiB).
          skipped.push({ name: storableName(entry.fileName.slice(0, MAX_LISTED_NAME)), reason })
          return archive.readEntry()
        }
        if (files.length >= limits.maxFiles) return fail(badRequest(TOO_MANY_FILES_MESSAGE))
        // The header's size first (cheap), then the real bytes as they inflate (yauzl stops at the header's size).
        if (entry.uncompressedSize > limits.maxEntryBytes) return fail(tooLarge(entryTooLargeMessage(entry.fileName)))
        total += entry.uncompressedSize
        if (total > limits.maxTotalBytes) return fail(tooLarge(ZIP_TOO_LARGE_MESSAGE))
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return fail(badRequest(UNREADABLE_ZIP))
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('error', () => fail(badRequest(UNREADABLE_ZIP)))
          stream.on('end', () => {
            files.push({ name: entryBaseName(entry.fileName), bytes: Buffer.concat(chunks) })
            archive.readEntry()
          })
        })
      })
      archive.readEntry()
    })
  })
}

/** A zip of the files, each under its safe and unique name (entry-names.ts: the name itself where safe). */
export function writeZip(files: NamedBytes[]): Promise<Buffer> {
  const archive = new yazl.ZipFile()
  const names = safeUniqueEntryNames(files.map((f) => f.name))
  files.forEach((file, i) => archive.addBuffer(file.bytes, names[i]!, { compress: false }))
  archive.end()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    archive.outputStream.on('error', reject)
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
  })
}
