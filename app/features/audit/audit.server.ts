// The audit log's one writer and its readers. recordAudit takes a transaction, never a database
// handle: an entry is written in the same transaction as the action it records, so the two commit
// or roll back together (an action without its entry, or an entry for an action that never
// happened, cannot exist). Nothing here updates or deletes: the table refuses it anyway (0100).
import { sql, type Transaction } from 'kysely'
import { getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { offsetOf, pageOf, type Page } from '~/utils/paging'
import { CLI_ACTOR, type AuditAction, type AuditTargetType } from './actions'

/** Who acted: a signed-in user (operator or team admin), or the operator channel. */
export type AuditActor = { userId: string } | typeof CLI_ACTOR

export interface AuditEntry {
  actor: AuditActor
  action: AuditAction
  targetType: AuditTargetType
  targetId: string
  details?: Record<string, unknown>
}

export function actorId(actor: AuditActor): string {
  return actor === CLI_ACTOR ? CLI_ACTOR : actor.userId
}

/** Where an operator's action came from, kept in its details: the console or `npm run credits`. */
export function channelOf(actor: AuditActor): 'cli' | 'console' {
  return actor === CLI_ACTOR ? 'cli' : 'console'
}

/** Appends one entry in the caller's transaction; the actor's email is read there too (a snapshot). */
export async function recordAudit(entry: AuditEntry, trx: Transaction<Database>): Promise<void> {
  const actor = actorId(entry.actor)
  await trx
    .insertInto('audit_log')
    .values((eb) => ({
      actor,
      actor_email: entry.actor === CLI_ACTOR ? null : eb.selectFrom('users').select('email').where('id', '=', actor),
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      details: JSON.stringify(entry.details ?? {}),
    }))
    .execute()
}

/**
 * A team member's role and monthly cap changes, one entry each, so the log can be filtered by either;
 * each names the value before and after (decision 162). `withdrawn`: what the role change took away
 * at once (team keys the member made, invites they sent), in the role's entry.
 */
export function memberChangeEntries(
  actorUserId: string,
  teamId: string,
  memberUserId: string,
  change: { role?: string; monthly_cap?: number | null },
  before: { role: string; monthly_cap: number | null },
  withdrawn: Record<string, unknown> = {},
): AuditEntry[] {
  const entry = (action: AuditAction, details: Record<string, unknown>): AuditEntry => ({
    actor: { userId: actorUserId },
    action,
    targetType: 'team',
    targetId: teamId,
    details: { userId: memberUserId, ...details, previousRole: before.role },
  })
  const entries: AuditEntry[] = []
  if (change.role !== undefined) entries.push(entry('team.member.role', { role: change.role, ...withdrawn }))
  if (change.monthly_cap !== undefined) entries.push(entry('team.member.cap', { cap: change.monthly_cap, previousCap: before.monthly_cap }))
  return entries
}

export interface AuditFilters {
  action?: AuditAction
  /** A user id, an email (as it was when they acted) or 'cli'. */
  actor?: string
  /** A target's id (user, team or key). */
  target?: string
  /** A user id that acted or was acted on (a user's console page). */
  involving?: string
  /** UTC days, inclusive: YYYY-MM-DD. */
  from?: string
  to?: string
}

export interface AuditRow {
  id: number
  createdAt: Date
  actor: string
  actorEmail: string | null
  action: string
  targetType: string
  targetId: string
  details: Record<string, unknown>
}

function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`)
}

function filtered(filters: AuditFilters, db: DbOrTx) {
  let query = db.selectFrom('audit_log').select(['id', 'created_at', 'actor', 'actor_email', 'action', 'target_type', 'target_id', 'details'])
  if (filters.action) query = query.where('action', '=', filters.action)
  const actor = filters.actor?.trim()
  if (actor) query = query.where((eb) => eb.or([eb('actor', '=', actor), eb(sql`lower(actor_email)`, '=', actor.toLowerCase())]))
  const target = filters.target?.trim()
  if (target) query = query.where('target_id', '=', target)
  if (filters.involving) {
    const id = filters.involving
    query = query.where((eb) => eb.or([eb('actor', '=', id), eb('target_id', '=', id)]))
  }
  if (filters.from) query = query.where('created_at', '>=', dayStart(filters.from))
  if (filters.to) query = query.where('created_at', '<', new Date(dayStart(filters.to).getTime() + 86_400_000))
  return query
}

function toRow(r: { id: number; created_at: Date; actor: string; actor_email: string | null; action: string; target_type: string; target_id: string; details: unknown }): AuditRow {
  return {
    id: r.id,
    createdAt: r.created_at,
    actor: r.actor,
    actorEmail: r.actor_email,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
  }
}

export const AUDIT_PAGE_SIZE = 50

/** One page of entries, newest first, and whether an older page exists. */
export async function listAudit(filters: AuditFilters, page = 1, db: DbOrTx = getDb()): Promise<Page<AuditRow>> {
  const rows = await filtered(filters, db)
    .orderBy('id', 'desc')
    .limit(AUDIT_PAGE_SIZE + 1)
    .offset(offsetOf(page, AUDIT_PAGE_SIZE))
    .execute()
  return pageOf(rows.map(toRow), AUDIT_PAGE_SIZE)
}

const EXPORT_CHUNK = 500

/**
 * Every matching entry, newest first, a chunk at a time (keyset on id), so an export of a long
 * history never holds it all in memory.
 */
export async function* eachAuditEntry(filters: AuditFilters, db: DbOrTx = getDb()): AsyncGenerator<AuditRow> {
  let before: number | null = null
  for (;;) {
    let query = filtered(filters, db).orderBy('id', 'desc').limit(EXPORT_CHUNK)
    if (before !== null) query = query.where('id', '<', before)
    const rows = await query.execute()
    for (const row of rows) yield toRow(row)
    if (rows.length < EXPORT_CHUNK) return
    before = rows[rows.length - 1].id
  }
}
