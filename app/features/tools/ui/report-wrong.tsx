// "This result is wrong" beside a result (decision 175): on the workspace's result, on each history run
// and on each batch item. A <details> holding one small form with an optional note. Without JavaScript
// it is a plain post to /feedback/<job>, which answers a page saying so with a way back; with it, the
// same post goes through a fetcher and the answer shows in place.
import { useFetcher, useLocation } from '@remix-run/react'
import { useId } from 'react'
import { FEEDBACK_FIELD, NOTE_LABEL, NOTE_MAX_CHARS, REPORT_HINT, REPORT_SENT_WORDS, REPORT_UPDATED_WORDS, REPORT_WORDS, reportPath } from '~/catalog/feedback'

export type ReportAnswer = { ok: true; created: boolean; back: string | null } | { ok: false; error: string }

const summaryClass =
  'inline-flex min-h-11 cursor-pointer items-center text-sm font-semibold text-slate-700 underline underline-offset-2 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'
const buttonClass =
  'inline-flex min-h-11 items-center justify-center rounded-lg border border-slate-400 bg-white px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

/** The words an answer shows: thanks, or why it was refused. */
export function ReportOutcome({ answer }: { answer: ReportAnswer }) {
  if (!answer.ok) {
    return (
      <p role="alert" className="mt-2 text-sm font-semibold text-red-800">
        {answer.error}
      </p>
    )
  }
  return (
    <p role="status" className="mt-2 text-sm font-semibold text-emerald-900">
      {answer.created ? REPORT_SENT_WORDS : REPORT_UPDATED_WORDS}
    </p>
  )
}

/** The note field and the button, posted to /feedback/<job>; `back` is the page to return to. */
export function ReportFields({ back, noteId }: { back: string; noteId: string }) {
  return (
    <>
      <label htmlFor={noteId} className="block text-sm font-medium text-slate-800">
        {NOTE_LABEL}
      </label>
      <textarea id={noteId} name={FEEDBACK_FIELD.note} maxLength={NOTE_MAX_CHARS} rows={3} className="mt-1 block w-full rounded-md border border-slate-400 p-2 text-sm text-slate-900" />
      <input type="hidden" name={FEEDBACK_FIELD.back} value={back} />
      <p className="mt-1 text-xs text-slate-700">{REPORT_HINT}</p>
      <button type="submit" className={`${buttonClass} mt-2`}>
        Send report
      </button>
    </>
  )
}

/**
 * The report beside a result; nothing without a job id. `name` tells one list item's form from another's;
 * `boxed`: a card of its own (the workspace's, under its tool form).
 */
export function ReportWrong({ jobId, name, boxed = false }: { jobId: string | null | undefined; name?: string; boxed?: boolean }) {
  const fetcher = useFetcher<ReportAnswer>()
  const location = useLocation()
  const noteId = useId()
  if (!jobId) return null
  const answer = fetcher.state === 'idle' ? fetcher.data : undefined
  return (
    <details className={boxed ? 'mt-4 rounded-2xl border border-slate-200 bg-white px-4 py-1 shadow-sm' : 'basis-full'} data-testid="report-wrong">
      <summary className={summaryClass}>
        {REPORT_WORDS}
        {name ? <span className="sr-only"> ({name})</span> : null}
      </summary>
      <fetcher.Form method="post" action={reportPath(jobId)} className="mt-2 mb-3 max-w-md" aria-label={name ? `${REPORT_WORDS} (${name})` : REPORT_WORDS}>
        <ReportFields back={`${location.pathname}${location.search}`} noteId={noteId} />
        {answer ? <ReportOutcome answer={answer} /> : null}
      </fetcher.Form>
    </details>
  )
}

