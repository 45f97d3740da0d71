// In-process news of jobs: a local worker tells the requests waiting in the same process the moment
// a job ends (with its output, so the answer needs no read back), and a request that enqueued wakes
// the local worker at once. Other processes learn the same from the database (see wait.server.ts).
import { EventEmitter } from 'node:events'
import { singleton } from '~/utils/singleton.server'
import type { Delivered } from '../runners/types'
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
