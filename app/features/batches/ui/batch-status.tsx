// A batch's status as the studio shows it, with and without JavaScript: the count of files done and
// failed, progress per file, each result's download once it is ready, and "Download all" (the zip,
// with errors.json for the files that failed) once every file has run.
import { Link } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { TOOLS, type ToolSlug } from '~/catalog/tools'

export interface BatchItemView {
  name: string
  status: string
  progress: number
  result_url: string | null
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
  return `${batch.status === 'completed' ? 'Batch complete' : 'Batch running'}: ${batch.done} done, ${batch.failed} failed, ${batch.total} in all`
}

/** Under a batch with failed files: the charges of the others stand. */
export const FAILED_FILES_NOT_CHARGED = 'A file that fails is not charged: its credits are refunded in full.'

const ITEM_WORDS: Record<string, string> = { queued: 'Waiting', running: 'Running' }

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
            One zip of the {batch.done} result{batch.done === 1 ? '' : 's'} under their original names
            {batch.failed > 0 ? ', with errors.json naming the files that failed' : ''}.
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
      <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200" aria-label="Files">
        {batch.items.map((item, i) => (
          <li key={i} className="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 gap-y-1.5 p-3 text-sm sm:grid-cols-[minmax(0,1fr)_8rem_3rem_minmax(0,14rem)]">
            <span className="min-w-0 truncate font-medium text-slate-900" title={item.name}>
              {item.name}
            </span>
            <span
              role="progressbar"
              aria-label={`${item.name} progress`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={item.progress}
              className="order-3 col-span-2 h-1.5 overflow-hidden rounded-full bg-slate-200 sm:order-none sm:col-span-1"
            >
              <span className={`block h-full rounded-full ${item.status === 'failed' ? 'bg-red-500' : 'bg-indigo-600'}`} style={{ width: `${item.progress}%` }} />
            </span>
            <span className="text-right tabular-nums text-slate-600">{item.progress}%</span>
            <span className="order-4 col-span-2 text-slate-700 sm:order-none sm:col-span-1" data-testid="item-outcome">
              {item.status === 'succeeded' && item.result_url ? (
                <a href={`${item.result_url}?download=1`} className="font-semibold text-indigo-700 underline underline-offset-2">
                  Done: download<span className="sr-only"> the result of {item.name}</span>
                </a>
              ) : item.status === 'failed' ? (
                <span className="text-red-800">Failed: {item.error}</span>
              ) : (
                (ITEM_WORDS[item.status] ?? item.status)
              )}
            </span>
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
