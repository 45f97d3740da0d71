// In-process news of jobs: a local worker tells the requests waiting in the same process the moment
// a job ends (with its output, so the answer needs no read back), and a request that enqueued wakes
// the local worker at once. Other processes learn the same from the database (see wait.server.ts).
// A shutdown is news too: the waiting requests answer before the process exits.
import { EventEmitter } from 'node:events'
import { singleton } from '~/utils/singleton.server'
import type { Delivered } from './runner'
import type { ToolJobInfo } from './jobs.server'

export interface JobEnded {
  jobId: string
  /** The ended row, when this process recorded the outcome (saves the waiter a read). */
  job?: ToolJobInfo
  /** The output, when this process ran the job and it delivered. */
  delivered?: Delivered
}

function emitter(): EventEmitter {
  return singleton('tool-job-events', () => new EventEmitter().setMaxListeners(0))
}

export function announceJobEnded(ended: JobEnded): void {
  emitter().emit(`ended:${ended.jobId}`, ended)
}

export function onJobEnded(jobId: string, listener: (ended: JobEnded) => void): () => void {
  const name = `ended:${jobId}`
  emitter().once(name, listener)
  return () => emitter().off(name, listener)
}

export function announceJobQueued(): void {
  emitter().emit('queued')
}

export function onJobQueued(listener: () => void): () => void {
  emitter().on('queued', listener)
  return () => emitter().off('queued', listener)
}

/**
 * This process is shutting down (drainJobWorker): requests still waiting for a job answer by
 * `deadline` (performance.now() of this process: monotonic) at the latest, the job's URL instead of its result (wait.server.ts).
 */
export function announceShutdown(deadline: number): void {
  shutdown().deadline = deadline
  emitter().emit('shutdown', deadline)
}

/** Calls `listener` with the deadline once the shutdown is announced (at once if it was already). */
export function onShutdown(listener: (deadline: number) => void): () => void {
  const announced = shutdown().deadline
  if (announced !== null) {
    listener(announced)
    return () => {}
  }
  emitter().once('shutdown', listener)
  return () => emitter().off('shutdown', listener)
}

function shutdown(): { deadline: number | null } {
  return singleton('tool-job-shutdown', () => ({ deadline: null as number | null }))
}
