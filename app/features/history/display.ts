// History's entries as the page shows them (client-safe): a single run, or a batch with its items.
// The state words are the runs' own (jobs/run-state.ts); the charge words are here.
import { formatCredits } from '~/features/credits/display'
import type { ToolSlug } from '~/catalog/tools'
import type { RunState } from '~/features/jobs/run-state'
import { formatMegabytes } from '~/features/tools/ui/file-checks'

/** How long results are kept, and so how far back history goes (results.server RESULT_TTL_HOURS). */
export const HISTORY_HOURS = 24
/** The page reads itself again this often while a run is underway (JavaScript only). */
export const HISTORY_POLL_MS = 2000
export const EMPTY_HISTORY = 'No runs in the last 24 hours. Results you make appear here and stay downloadable for 24 hours.'
export const HISTORY_INTRO = 'Your runs of the last 24 hours. Results are kept for 24 hours, then deleted.'
export const RESULT_GONE = 'Result no longer kept'

export interface HistoryRun {
  id: string
  tool: ToolSlug
  toolName: string
  fileName: string
  inputBytes: number
  width: number | null
  height: number | null
  state: RunState
  statusText: string
  progress: number
  /** Credits taken and kept; null while a batch item waits for its turn (charged when it runs). */
  credits: number | null
  /** The result's download while it is kept; null otherwise. */
  downloadUrl: string | null
  thumbnailUrl: string | null
  createdAt: string
  when: string
}

export interface HistoryBatch {
  id: string
  tool: ToolSlug
  toolName: string
  status: 'running' | 'completed'
  total: number
  done: number
  failed: number
  noFace: number
  credits: number
  url: string
  downloadUrl: string | null
  createdAt: string
  when: string
  items: HistoryRun[]
}

export type HistoryEntry = ({ kind: 'run' } & HistoryRun) | ({ kind: 'batch' } & HistoryBatch)

/** "1 credit", "Not charged", "Charged when it runs". */
export function chargeText(run: Pick<HistoryRun, 'credits' | 'state'>): string {
  if (run.credits === null) return 'Charged when it runs'
  if (run.credits === 0) return run.state === 'waiting' || run.state === 'running' ? 'Charged when it runs' : 'Not charged'
  return formatCredits(run.credits)
}

/** "1.20 MB · 1200×800" */
export function sizeText(run: Pick<HistoryRun, 'inputBytes' | 'width' | 'height'>): string {
  const bytes = formatMegabytes(run.inputBytes)
  return run.width && run.height ? `${bytes} · ${run.width}×${run.height}` : bytes
}

export function batchSummary(batch: Pick<HistoryBatch, 'total' | 'done' | 'failed' | 'noFace' | 'status'>): string {
  const noFace = batch.noFace > 0 ? ` (${batch.noFace} with no face found)` : ''
  const head = batch.status === 'completed' ? 'Complete' : 'Running'
  return `${head}: ${batch.done} done${noFace}, ${batch.failed} failed, ${batch.total} in all`
}

/** Whether anything listed is still underway: the page then follows it. */
export function hasUnderway(entries: HistoryEntry[]): boolean {
  return entries.some((e) => (e.kind === 'batch' ? e.status === 'running' : e.state === 'waiting' || e.state === 'running'))
}
