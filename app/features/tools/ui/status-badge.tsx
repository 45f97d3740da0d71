// The run's state in a word (spec §4). The SVG converter names its states queued / processing / ready,
// and a run that failed 'failed' (never 'queued' in the error's red: decision 164).
import type { ToolSlug } from '~/catalog/tools'
import type { RunStatus } from './use-tool-run'

const LABELS: Record<RunStatus, string> = {
  idle: 'Idle',
  ready: 'Ready',
  processing: 'Processing',
  complete: 'Complete',
  error: 'Error',
}

const SVG_LABELS: Record<RunStatus, string> = {
  idle: 'queued',
  ready: 'queued',
  processing: 'processing',
  complete: 'ready',
  error: 'failed',
}

const TONES: Record<RunStatus, string> = {
  idle: 'bg-slate-100 text-slate-700',
  ready: 'bg-sky-100 text-sky-800',
  processing: 'bg-amber-100 text-amber-900',
  complete: 'bg-emerald-100 text-emerald-800',
  error: 'bg-red-100 text-red-800',
}

export function statusLabel(tool: ToolSlug, status: RunStatus): string {
  return tool === 'svg-converter' ? SVG_LABELS[status] : LABELS[status]
}

export function StatusBadge({ tool, status }: { tool: ToolSlug; status: RunStatus }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${TONES[status]}`}
      data-testid="status-badge"
      data-status={status}
    >
      <span className="sr-only">Status: </span>
      {statusLabel(tool, status)}
    </span>
  )
}
