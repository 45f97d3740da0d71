// The queue as /healthz reports it: this process's role, the jobs waiting and running, and the
// worker processes pg-boss heard from recently (its instance registry).
import { sql } from 'kysely'
import { getDb } from '~/db/db.server'
import { existingSingleton } from '~/utils/singleton.server'
import type { PgBoss } from 'pg-boss'
import { processRole } from './roles.server'
import { TOOL_JOB_QUEUE, toolQueues } from './queue.server'

export async function queueHealth() {
  const counts = await getDb()
    .selectFrom('tool_jobs')
    .select([
      sql<number>`count(*) filter (where status = 'queued')::int`.as('waiting'),
      sql<number>`count(*) filter (where status = 'running')::int`.as('running'),
    ])
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
  // Only a process that started pg-boss asks it (a health check must not start the queue itself).
  const started = existingSingleton<Promise<PgBoss>>('pg-boss') ? await toolQueues() : null
  // A pg-boss that is stopping (shutdown, or a test that stopped it) has no registry to read: no workers.
  const instances = started ? await started.getInstances().catch(() => []) : []
  const workers = instances
    .filter((instance) => instance.live && instance.workers.some((w) => w.queue === TOOL_JOB_QUEUE))
    .map((instance) => ({
      host: instance.host,
      pid: instance.pid,
      name: instance.name,
      slots: instance.workers.filter((w) => w.queue === TOOL_JOB_QUEUE).length,
      active: instance.workers.filter((w) => w.queue === TOOL_JOB_QUEUE).reduce((n, w) => n + w.active, 0),
      heartbeatOn: instance.heartbeatOn,
    }))
  // waiting is the queue's depth: jobs no worker has taken yet.
  return { role: processRole(), waiting: counts.waiting, running: counts.running, workers }
}
