// A batch's status as the studio shows it, with and without JavaScript: the count of files done and
// failed, progress per file, each result's download once it is ready, and "Download all" (the zip,
// with errors.json for the files that failed) once every file has run.
import { ReportWrong } from '~/features/tools/ui/report-wrong'
import { Link } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import type { RunState } from '~/features/jobs/run-state'
import { CorrectLink } from '~/features/tools/ui/correct-link'
import { ResultThumbnail } from '~/features/tools/ui/result-thumbnail'

export interface BatchItemView {
  job_id: string
  name: string
  status: string
  state: RunState
  status_text: string
  progress: number
  credits_charged: number
  result_url: string | null
  thumbnail_url: string | null
  error: string | null
}

/** GET /api/batches/<id>/ (the loader gives the page the same shape). */
export interface BatchStatusView {
  id: string
  tool: ToolSlug
  status: 'running' | 'completed'
  total: number
  done: number
  failed: number
  /** Of done: face runs that found no face (not charged). */
  no_face: number
  items: BatchItemView[]
  /** Zip entries that are not files of the batch (batches/zip.server.ts): listed, never run. */
  skipped: Array<{ name: string; reason: 'folder' | 'hidden' }>
}

/** What the screen says of the zip entries a batch skipped. */
export function skippedSummary(skipped: BatchStatusView['skipped']): string {
  const folders = skipped.filter((entry) => entry.reason === 'folder').length
  const hidden = skipped.length - folders
  const parts = [folders ? `${folders} folder${folders === 1 ? '' : 's'}` : '', hidden ? `${hidden} hidden file${hidden === 1 ? '' : 's'}` : ''].filter(Boolean)
  return `Skipped from the zip: ${parts.join(' and ')} (such as __MACOSX/ or .DS_Store). They are not files of the batch and were not run.`
}

export function batchHeading(batch: BatchStatusView): string {
  const noFace = batch.no_face > 0 ? ` (${batch.no_face} with no face found)` : ''
  return `${batch.status === 'completed' ? 'Batch complete' : 'Batch running'}: ${batch.done} done${noFace}, ${batch.failed} failed, ${batch.total} in all`
}

/** Under a batch with failed files: the charges of the others stand. */
export const FAILED_FILES_NOT_CHARGED = 'A file that fails is not charged: its credits are refunded in full.'

export function BatchStatus({ batch, focusOnMount = false }: { batch: BatchStatusView; focusOnMount?: boolean }) {
  const ended = batch.status === 'completed'
  const heading = useRef<HTMLHeadingElement>(null)
  const tool = TOOLS[batch.tool]
  const finished = batch.done + batch.failed
  const percent = batch.total > 0 ? Math.round((finished / batch.total) * 100) : 100

  // A batch just sent: focus moves to its status, which replaced the form.
  useEffect(() => {
    if (focusOnMount) heading.current?.focus()
  }, [focusOnMount])

  return (
    <section aria-labelledby="batch-heading" className="mt-4 space-y-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm" data-testid="batch-status">
      <div className="space-y-1">
        <h2 id="batch-heading" ref={heading} tabIndex={-1} className="text-lg font-semibold text-slate-900 outline-none">
          {batchHeading(batch)}
        </h2>
        <p className="text-sm text-slate-600">
          {tool.name}
          {ended
            ? batch.failed > 0
              ? ` · ${FAILED_FILES_NOT_CHARGED}`
              : ''
            : ' · Each file is charged when it runs. This page follows the batch until every file has run.'}
        </p>
      </div>
      <div
        role="progressbar"
        aria-label="Files run"
        aria-valuemin={0}
        aria-valuemax={batch.total}
        aria-valuenow={finished}
        aria-valuetext={`${finished} of ${batch.total} files run`}
        className="h-2 overflow-hidden rounded-full bg-slate-200"
      >
        <div className={`h-full rounded-full transition-[width] duration-500 ${ended && batch.done === 0 ? 'bg-red-500' : 'bg-indigo-600'}`} style={{ width: `${percent}%` }} />
      </div>
      {ended ? (
        <div className="flex flex-wrap items-center gap-3 rounded-xl border border-emerald-300 bg-emerald-50 p-3">
          <a
            href={`/api/batches/${batch.id}/download/`}
            download
            className="inline-flex min-h-11 items-center justify-center rounded-lg bg-emerald-700 px-4 py-2 font-semibold text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-800"
            data-testid="download-all"
          >
            Download all
          </a>
          <span className="text-sm text-emerald-950">
            One zip of the {batch.done} result{batch.done === 1 ? '' : 's'} under their original names, with manifest.json listing every file
            {batch.failed > 0 || batch.no_face > 0 ? ' and errors.json naming the files that failed or had no face' : ''}.
          </span>
        </div>
      ) : null}
      {batch.skipped.length > 0 ? (
        <details className="text-sm text-slate-700" data-testid="batch-skipped">
          <summary className="cursor-pointer">{skippedSummary(batch.skipped)}</summary>
          <ul className="mt-2 list-disc space-y-0.5 pl-6" aria-label="Skipped from the zip">
            {batch.skipped.map((entry, i) => (
              <li key={i} className="break-all">
                {entry.name} ({entry.reason === 'folder' ? 'folder' : 'hidden file'})
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Files">
        {batch.items.map((item, i) => (
          <li key={i} className="flex min-w-0 flex-col gap-2 rounded-xl border border-slate-200 p-2 text-sm" data-testid="batch-item" data-state={item.state}>
            <ResultThumbnail src={item.thumbnail_url} state={item.state} />
            <span className="min-w-0 truncate font-medium text-slate-900" title={item.name}>
              {item.name}
            </span>
            <span
              role="progressbar"
              aria-label={`${item.name} progress`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={item.progress}
              className="h-1.5 overflow-hidden rounded-full bg-slate-200"
            >
              <span className={`block h-full rounded-full ${item.state === 'failed' ? 'bg-red-500' : 'bg-indigo-600'}`} style={{ width: `${item.progress}%` }} />
            </span>
            <span className="text-slate-700" data-testid="item-outcome">
              {item.state === 'failed' ? (
                <span className="text-red-800">{item.status_text}</span>
              ) : item.state === 'no_face' ? (
                <span className="text-amber-900">{item.status_text}</span>
              ) : (
                item.status_text
              )}
            </span>
            {item.result_url && (item.state === 'done' || item.state === 'no_face') ? (
              <a href={`${item.result_url}?download=1`} className="mt-auto font-semibold text-indigo-700 underline underline-offset-2">
                Download<span className="sr-only"> the result of {item.name}</span>
              </a>
            ) : null}
            {item.result_url && item.state === 'done' ? <CorrectLink jobId={item.job_id} tool={batch.tool} name={item.name} inline /> : null}
            {item.result_url && (item.state === 'done' || item.state === 'no_face') ? <ReportWrong jobId={item.job_id} name={item.name} /> : null}
          </li>
        ))}
      </ul>
      <p>
        <Link to={`/tools/batch?tool=${batch.tool}`} className="text-sm font-semibold text-indigo-700 underline underline-offset-2">
          Start another batch
        </Link>
      </p>
      {/* Said once, when the batch ends. */}
      <p role="status" aria-live="polite" className="sr-only">
        {ended ? batchHeading(batch) : ''}
      </p>
    </section>
  )
}
