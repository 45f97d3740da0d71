// The console's export of reports (decision 175): one case, or every report not yet expired, as a zip
// of folders the quality bench reads once unzipped (`npm run bench -- quality --from-feedback DIR`).
// Each folder: case.json, the input when it was kept, the output, and a cutout's mattes. The zip is
// streamed: cases are opened one after another while the earlier ones are written.
import { Readable } from 'node:stream'
import yazl from 'yazl'
import { logger } from '~/utils/logger.server'
import { caseFolder } from './feedback.server'
import { allReportIds } from './store.server'

/** The export's own file at the top of the zip: what it is and which folders it holds. */
export const EXPORT_INDEX = 'feedback-export.json'

export function exportFilename(now: Date, jobId?: string): string {
  return jobId ? `feedback-${jobId}.zip` : `feedback-${now.toISOString().slice(0, 10)}.zip`
}

/** A zip of these reports' cases (the gone ones left out), streamed. */
export function exportZip(jobIds: string[] | 'all', now: Date = new Date()): ReadableStream<Uint8Array> {
  const archive = new yazl.ZipFile()
  void (async () => {
    const ids = jobIds === 'all' ? await allReportIds(now) : jobIds
    const folders: string[] = []
    for (const id of ids) {
      const found = await caseFolder(id, now)
      if (!found) continue
      folders.push(found.folder)
      for (const [name, bytes] of Object.entries(found.files)) archive.addBuffer(bytes, `${found.folder}/${name}`, { mtime: now })
    }
    const index = { format: 'facet-feedback-export/1', exported_at: now.toISOString(), cases: folders }
    archive.addBuffer(Buffer.from(`${JSON.stringify(index, null, 2)}\n`), EXPORT_INDEX, { mtime: now })
    archive.end()
  })().catch((error: Error) => {
    logger.warn({ err: error.message }, 'feedback export failed')
    ;(archive.outputStream as Readable).destroy(error)
  })
  return Readable.toWeb(archive.outputStream as Readable) as ReadableStream<Uint8Array>
}
