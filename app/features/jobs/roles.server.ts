// What this process is: `npm start` serves the web and runs a worker (web+worker), WORKER_CONCURRENCY=0
// makes it web only, `npm run worker` runs a worker only (scripts/worker.ts says so at start).
import { config } from '~/config.server'
import { replaceSingleton, singleton } from '~/utils/singleton.server'

export type ProcessRole = 'web+worker' | 'web' | 'worker'

export function processRole(): ProcessRole {
  return singleton<ProcessRole>('process-role', () => (config().workerConcurrency === 0 ? 'web' : 'web+worker'))
}

export function runAsWorkerOnly(): void {
  replaceSingleton<ProcessRole>('process-role', 'worker')
}
