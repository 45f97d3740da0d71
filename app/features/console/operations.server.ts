// What the operator console shows of the running service: the queue (the same figures as /healthz),
// the tool jobs that failed with their errors, and webhook deliveries that are failing (given up, or
// still retrying after a failed attempt). Newest first, a page at a time.
import { sql } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import { queueHealth } from '~/features/jobs/health.server'

import { CONSOLE_PAGE_SIZE, offsetOf, pageOf, type Page } from '../../utils/paging'

export { queueHealth }

export interface FailedJobRow {
  id: string
  tool: string
  error: string | null
  errorStatus: number | null
  attempts: number
  /** Whose account paid: a user's email, a team's name, or null for a guest (visitor). */
  owner: { kind: 'user' | 'team'; id: string; label: string } | null
  createdAt: Date
  finishedAt: Date | null
}

export async function failedJobs(page = 1, db: DbOrTx = getDb()): Promise<Page<FailedJobRow>> {
  const rows = await db
    .selectFrom('tool_jobs as j')
    .innerJoin('credit_accounts as a', 'a.id', 'j.account_id')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('teams as t', 't.id', 'a.team_id')
    .select([
      'j.id',
      'j.tool',
      'j.error',
      'j.error_status as errorStatus',
      'j.attempts',
      'u.id as userId',
      'u.email',
      't.id as teamId',
      't.name as teamName',
      'j.created_at as createdAt',
      'j.finished_at as finishedAt',
    ])
    .where('j.status', '=', 'failed')
    .orderBy(sql`coalesce(j.finished_at, j.created_at)`, 'desc')
    .orderBy('j.id')
    .limit(CONSOLE_PAGE_SIZE + 1)
    .offset(offsetOf(page))
    .execute()
  return pageOf(
    rows.map(({ userId, email, teamId, teamName, ...job }) => ({
      ...job,
      owner: userId && email ? { kind: 'user' as const, id: userId, label: email } : teamId && teamName ? { kind: 'team' as const, id: teamId, label: teamName } : null,
    })),
  )
}

export interface FailingDeliveryRow {
  id: string
  url: string
  eventType: string
  status: string
  attempts: number
  lastStatusCode: number | null
  lastError: string | null
  nextAttemptAt: Date | null
  updatedAt: Date
}

export async function failingDeliveries(page = 1, db: DbOrTx = getDb()): Promise<Page<FailingDeliveryRow>> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'e.url',
      'd.event_type as eventType',
      'd.status',
      'd.attempts',
      'd.last_status_code as lastStatusCode',
      'd.last_error as lastError',
      'd.next_attempt_at as nextAttemptAt',
      'd.updated_at as updatedAt',
    ])
    .where((eb) => eb.or([eb('d.status', '=', 'failed'), eb.and([eb('d.status', '=', 'pending'), eb('d.attempts', '>', 0)])]))
    .orderBy('d.updated_at', 'desc')
    .orderBy('d.id')
    .limit(CONSOLE_PAGE_SIZE + 1)
    .offset(offsetOf(page))
    .execute()
  return pageOf(rows)
}
