// History's list: a card per run (thumbnail, tool, file, size, charge, state, download) and per batch
// (its counts, a link to its screen, its zip once complete, its files in a disclosure). Plain HTML:
// the same without JavaScript; with it the page re-reads itself while a run is underway.
import { ReportWrong } from '~/features/tools/ui/report-wrong'
import { Link } from '@remix-run/react'
import { CorrectLink } from '~/features/tools/ui/correct-link'
import { ResultThumbnail } from '~/features/tools/ui/result-thumbnail'
import { batchSummary, chargeText, sizeText, type HistoryBatch, type HistoryEntry, type HistoryRun } from '../display'

const linkClass = 'font-semibold text-indigo-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

function stateClass(run: HistoryRun): string {
  if (run.state === 'failed') return 'text-red-800'
  if (run.state === 'no_face') return 'text-amber-900'
  if (run.state === 'done') return 'text-emerald-800'
  return 'text-slate-700'
}

function RunRow({ run, compact = false }: { run: HistoryRun; compact?: boolean }) {
  return (
    <div className="grid grid-cols-[4rem_minmax(0,1fr)] gap-3 sm:grid-cols-[5rem_minmax(0,1fr)_auto] sm:items-center" data-testid="history-run" data-state={run.state}>
      <ResultThumbnail src={run.thumbnailUrl} state={run.state} className={compact ? 'h-16 w-16' : 'h-16 w-16 sm:h-20 sm:w-20'} />
      <div className="min-w-0 space-y-0.5 text-sm">
        <p className="truncate font-semibold text-slate-900" title={run.fileName}>
          {run.fileName}
        </p>
        <p className="text-slate-600">
          {compact ? null : <>{run.toolName} · </>}
          {sizeText(run)} · {chargeText(run)}
          {compact ? null : <> · <time dateTime={run.createdAt}>{run.when}</time></>}
        </p>
        <p className={stateClass(run)}>{run.statusText}</p>
      </div>
      <div className="col-start-2 flex flex-wrap gap-x-4 gap-y-1 text-sm sm:col-start-auto sm:flex-col sm:items-end">
        {run.downloadUrl ? (
          <a href={run.downloadUrl} className={linkClass}>
            Download<span className="sr-only"> the result of {run.fileName}</span>
          </a>
        ) : null}
        {run.downloadUrl && run.state === 'done' ? <CorrectLink jobId={run.id} tool={run.tool} name={run.fileName} inline /> : null}
        {run.downloadUrl && (run.state === 'done' || run.state === 'no_face') ? <ReportWrong jobId={run.id} name={run.fileName} /> : null}
        {run.downloadUrl ? null : run.state === 'done' || run.state === 'no_face' ? (
          <span className="text-slate-600">Result no longer kept</span>
        ) : null}
      </div>
    </div>
  )
}

function BatchCard({ batch }: { batch: HistoryBatch }) {
  const previews = batch.items.filter((item) => item.thumbnailUrl).slice(0, 4)
  return (
    <div className="space-y-3" data-testid="history-batch">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-0.5 text-sm">
          <p className="font-semibold text-slate-900">
            Batch of {batch.total} {batch.total === 1 ? 'file' : 'files'} · {batch.toolName}
          </p>
          <p className="text-slate-600">
            {batchSummary(batch)} · {chargeText({ credits: batch.credits, state: batch.status === 'completed' ? 'done' : 'running' })} ·{' '}
            <time dateTime={batch.createdAt}>{batch.when}</time>
          </p>
        </div>
        <div className="flex flex-wrap gap-3 text-sm">
          <Link to={batch.url} className={linkClass}>
            Open batch
          </Link>
          {batch.downloadUrl ? (
            <a href={batch.downloadUrl} className={linkClass}>
              Download all<span className="sr-only"> ({batch.total} files)</span>
            </a>
          ) : null}
        </div>
      </div>
      {previews.length > 0 ? (
        <div className="flex gap-2" aria-hidden="true">
          {previews.map((item) => (
            <ResultThumbnail key={item.id} src={item.thumbnailUrl} state={item.state} className="h-16 w-16" />
          ))}
        </div>
      ) : null}
      <details className="text-sm">
        <summary className="cursor-pointer font-medium text-slate-800">Files of this batch</summary>
        <ul className="mt-3 space-y-3" aria-label={`Files of the batch of ${batch.total}`}>
          {batch.items.map((item) => (
            <li key={item.id}>
              <RunRow run={item} compact />
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}

export function HistoryList({ entries }: { entries: HistoryEntry[] }) {
  return (
    <ul className="space-y-3" aria-label="Runs">
      {entries.map((entry) => (
        <li key={`${entry.kind}:${entry.id}`} className="rounded-2xl border border-slate-200 bg-white p-3 shadow-sm sm:p-4">
          {entry.kind === 'batch' ? <BatchCard batch={entry} /> : <RunRow run={entry} />}
        </li>
      ))}
    </ul>
  )
}
