// Which path a run of this process took (docs/decisions/176): 'inline' (in the request that admitted
// it, no pg-boss job) or 'queue' (a pg-boss job, run by a worker or where it was admitted). Kept for
// the metrics and traces of its outcome, whoever records it (the run, the request that timed out).
import { singleton } from '~/utils/singleton.server'

export type RunPath = 'inline' | 'queue'

// On globalThis: the server and the Vite bundle each hold a copy of this module.
const inlineHere = () => singleton('inline-run-ids', () => new Set<string>())

export function markInline(jobId: string): void {
  inlineHere().add(jobId)
}

export function forgetInline(jobId: string): void {
  inlineHere().delete(jobId)
}

/** The path of a run of this process; a run this process does not hold inline went through the queue. */
export function runPath(jobId: string): RunPath {
  return inlineHere().has(jobId) ? 'inline' : 'queue'
}
