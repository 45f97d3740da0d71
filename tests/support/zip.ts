// Zips as archivers write them, for tests: folders as entries of their own, each file deflated
// unless told not, an optional comment after the directory, ZIP64 records on request.
import yauzl from 'yauzl'
import yazl from 'yazl'

export interface ZipEntry {
  name: string
  /** None: a folder. */
  bytes?: Buffer
  compress?: boolean
}

export function zipOf(entries: ZipEntry[], end: { comment?: string; forceZip64Format?: boolean } = {}): Promise<Buffer> {
  const archive = new yazl.ZipFile()
  for (const entry of entries) {
    if (entry.bytes) archive.addBuffer(entry.bytes, entry.name, { compress: entry.compress ?? true })
    else archive.addEmptyDirectory(entry.name)
  }
  // yazl's types ask for every option; it takes any of them.
  archive.end(end as yazl.EndOptions)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    archive.outputStream.on('error', reject)
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
  })
}

/**
 * A zip's files by name, read back with yauzl. `strict`: as a careful unzipper reads it, refusing names
 * with absolute paths, `..` or backslashes and sizes that disagree with the directory.
 */
export async function readZip(bytes: ArrayBuffer | Buffer, { strict = false }: { strict?: boolean } = {}): Promise<Map<string, Buffer>> {
  const options = { lazyEntries: true, ...(strict ? { strictFileNames: true, validateEntrySizes: true } : {}) }
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(Buffer.from(bytes as ArrayBuffer), options, (e, z) => (e ? reject(e) : resolve(z!))))
  const files = new Map<string, Buffer>()
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject)
    zip.on('entry', (entry: yauzl.Entry) =>
      zip.openReadStream(entry, (e, stream) => {
        if (e) return reject(e)
        const chunks: Buffer[] = []
        stream!.on('data', (c: Buffer) => chunks.push(c))
        stream!.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks))
          zip.readEntry()
        })
      }),
    )
    zip.on('end', resolve)
    zip.readEntry()
  })
  return files
}
