// The operator console's view of reports (decision 175): a page of them, newest first, each with its
// note, its facts and the addresses of its thumbnails and its export. Operators only (the routes guard).
import { CONSOLE_PAGE_SIZE, offsetOf, pageOf, type Page } from '~/utils/paging'
import { listReports } from './store.server'
import { CASE_FILES, caseExportPath, caseThumbnailPath } from '~/catalog/feedback'

export interface ConsoleReport {
  jobId: string
  tool: string
  model: string | null
  note: string | null
  reportedAt: string
  expiresAt: string
  /** Thumbnails to show: input, output, expected (each when the case has it). */
  thumbnails: { which: 'input' | 'output' | 'expected'; url: string; alt: string }[]
  exportUrl: string
}

export async function reportsPage(page: number, now: Date = new Date()): Promise<Page<ConsoleReport>> {
  const rows = await listReports({ limit: CONSOLE_PAGE_SIZE + 1, offset: offsetOf(page), now })
  return pageOf(
    rows.map((row) => {
      const has = (stem: string) => row.facts.files.some((name) => name.startsWith(`${stem}.`))
      const thumbnails: ConsoleReport['thumbnails'] = []
      if (has(CASE_FILES.inputStem)) thumbnails.push({ which: 'input', url: caseThumbnailPath(row.jobId, 'input'), alt: 'The image the run was given' })
      if (has(CASE_FILES.outputStem)) thumbnails.push({ which: 'output', url: caseThumbnailPath(row.jobId, 'output'), alt: 'The studio’s output' })
      if (row.facts.files.includes(CASE_FILES.expectedMatte)) thumbnails.push({ which: 'expected', url: caseThumbnailPath(row.jobId, 'expected'), alt: 'The corrected matte (expected)' })
      return {
        jobId: row.jobId,
        tool: row.tool,
        model: row.facts.model,
        note: row.note,
        reportedAt: row.updatedAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
        thumbnails,
        exportUrl: caseExportPath(row.jobId),
      }
    }),
  )
}

export function zipDownloadHeaders(filename: string): Record<string, string> {
  return {
    'Content-Type': 'application/zip',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  }
}
