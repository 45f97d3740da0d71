// A job's start and end as events. The tools publish them; other features (batches, webhooks)
// subscribe, so tools/ names none of them (docs/decisions/118).
//
// - "job starting": a worker claimed the job and is about to run it. A subscriber may charge for it
//   (a batch item is paid when its run starts) or refuse it (the item then fails unpaid).
// - "job ended": the outcome transaction (jobs/outcome.server.ts) finished the job. Subscribers run
//   INSIDE that transaction, with it: what they write commits or rolls back with the outcome, so a
//   job's end is heard exactly once (an outcome recorded twice finds the job ended and publishes
//   nothing the second time).
//
// Subscribers are registered in one place, features/wiring.server.ts, imported by every process that
// runs or ends jobs (server.ts, entry.server.tsx, scripts/worker.ts, the benches, the integration tests'
// setup).
// Publishing before that import happened is a programming error, thrown at once: a forgotten
// registration must not silently leave batches unsettled.
import type { Transaction } from 'kysely'
import type { Database } from '~/db/schema'
import { singleton } from '~/utils/singleton.server'
import type { ToolJobInfo } from './jobs.server'

/** What a "job starting" subscriber decides: the charge it took, or the refusal that fails the job. */
export type StartVerdict = { chargeTransactionId: number } | { refused: { status: 402 | 403; message: string } }

export interface JobSubscriber {
  /** Unique; registering the same name again replaces it (module reloads, a second import). */
  name: string
  /** Called before the outcome transaction opens (what must not start inside one, e.g. a queue). */
  prepare?: () => Promise<void>
  /** The job was claimed; undefined: nothing to say (not this subscriber's job). */
  starting?: (job: ToolJobInfo) => Promise<StartVerdict | undefined>
  /** The job ended; `trx` is the outcome's own transaction. */
  ended?: (job: ToolJobInfo, trx: Transaction<Database>) => Promise<void>
}

interface Registry {
  subscribers: Map<string, JobSubscriber>
  wired: boolean
}

// On globalThis: server.ts and the Vite-built bundle each hold a copy of this module, and a job ended
// by either must reach the subscribers either registered.
const registry = () => singleton<Registry>('job-lifecycle', () => ({ subscribers: new Map(), wired: false }))

export function subscribeToJobs(subscriber: JobSubscriber): void {
  registry().subscribers.set(subscriber.name, subscriber)
}

/** Called once by features/wiring.server.ts after it registered every subscriber. */
export function markJobSubscribersWired(): void {
  registry().wired = true
}

function subscribers(): JobSubscriber[] {
  const { subscribers, wired } = registry()
  if (!wired) throw new Error('Job subscribers are not registered: import ~/features/wiring.server in this process before jobs run')
  return [...subscribers.values()]
}

export async function prepareJobSubscribers(): Promise<void> {
  for (const subscriber of subscribers()) await subscriber.prepare?.()
}

/**
 * The job is starting. The first verdict given wins; the job's own charge (taken at submission) is
 * kept when no subscriber charges. Returns the charge to record on the job, or the refusal.
 */
export async function publishJobStarting(job: ToolJobInfo): Promise<{ chargeTransactionId: number | null } | Extract<StartVerdict, { refused: unknown }>> {
  for (const subscriber of subscribers()) {
    const verdict = await subscriber.starting?.(job)
    if (verdict) return verdict
  }
  return { chargeTransactionId: job.charge_transaction_id }
}

/** The job ended, inside its outcome transaction. */
export async function publishJobEnded(job: ToolJobInfo, trx: Transaction<Database>): Promise<void> {
  for (const subscriber of subscribers()) await subscriber.ended?.(job, trx)
}
