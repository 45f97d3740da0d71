// Zips as archivers write them, for tests: folders as entries of their own, each file deflated
// unless told not, an optional comment after the directory, ZIP64 records on request.
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
