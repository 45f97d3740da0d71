// History (/history): the caller's runs of the last 24 hours (results are kept 24 hours), newest
// first, a batch's items grouped under their batch. "The caller" is whoever pays now: a visitor's
// own runs; a signed-in user's runs on their own balance; working as a team, the runs this member
// sent on the team's balance (never another member's). Each run is a tool job (every run is one,
// single or batch item), so running and waiting runs are listed too.
import { getDb, type DB } from '~/db/db.server'
import { resolveCaller } from '~/features/account/caller.server'
import { relativeTime } from '~/features/auth/relative-time'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { runState, runStateText } from '~/features/jobs/run-state'
import { downloadUrl, thumbnailUrl } from '~/features/tools/ui/page-result'
import { batchDownloadUrl } from '~/features/batches/items.server'
import { HISTORY_HOURS, type HistoryBatch, type HistoryEntry, type HistoryRun } from './display'

/** The most runs one page lists (a full batch is 100). */
export const HISTORY_LIMIT = 300

export interface HistoryScope {
  accountId: string
  /** Working as a team: only this member's runs on it. */
  userId: string | null
  teamId: string | null
}

export interface HistoryPageData {
  /** Null when the browser has no visitor yet (nothing run here): the empty page, nothing written. */
  scope: 'visitor' | 'user' | 'team' | null
  teamName: string | null
  entries: HistoryEntry[]
  now: string
}

type JobRow = Awaited<ReturnType<typeof readJobs>>[number]

function readJobs(scope: HistoryScope, now: Date, db: DB) {
  let query = db
    .selectFrom('tool_jobs as j')
    .leftJoin('credit_transactions as c', 'c.id', 'j.charge_transaction_id')
    // A result is offered only while it is kept (the sweeper deletes it hourly after 24 hours).
    .leftJoin('results as r', (join) => join.onRef('r.id', '=', 'j.result_id').onRef('r.owner_account_id', '=', 'j.account_id').on('r.expires_at', '>', now))
    .select([
      'j.id',
      'j.tool',
      'j.original_name',
      'j.input_bytes',
      'j.input_width',
      'j.input_height',
      'j.status',
      'j.outcome',
      'j.progress',
      'j.error',
      'j.refunded',
      'j.batch_id',
      'j.batch_position',
      'j.created_at',
      'c.delta as charge_delta',
      'r.id as kept_result_id',
    ])
    .where('j.account_id', '=', scope.accountId)
    .where('j.created_at', '>', new Date(now.getTime() - HISTORY_HOURS * 3600_000))
  if (scope.teamId) query = query.where('j.user_id', '=', scope.userId)
  return query.orderBy('j.created_at', 'desc').orderBy('j.batch_position').limit(HISTORY_LIMIT).execute()
}

function runOf(row: JobRow, now: Date): HistoryRun {
  const state = runState(row)
  const tool = row.tool as ToolSlug
  const createdAt = new Date(row.created_at).toISOString()
  return {
    id: row.id,
    tool,
    toolName: TOOLS[tool]?.name ?? row.tool,
    fileName: row.original_name,
    inputBytes: row.input_bytes,
    width: row.input_width,
    height: row.input_height,
    state,
    statusText: runStateText(state, row),
    progress: row.progress,
    // A batch item is charged when its run starts; a refunded charge was not kept.
    credits: row.charge_delta === null ? (row.batch_id && (state === 'waiting' || state === 'running') ? null : 0) : row.refunded ? 0 : -Number(row.charge_delta),
    downloadUrl: row.kept_result_id ? downloadUrl(row.kept_result_id) : null,
    thumbnailUrl: row.kept_result_id ? thumbnailUrl(row.kept_result_id) : null,
    createdAt,
    when: relativeTime(createdAt, now.toISOString()),
  }
}

/** The rows, newest first, a batch's items gathered into one entry where its newest item stands. */
export async function listHistory(scope: HistoryScope, options: { now?: Date; db?: DB } = {}): Promise<HistoryEntry[]> {
  const now = options.now ?? new Date()
  const db = options.db ?? getDb()
  const rows = await readJobs(scope, now, db)
  const batchIds = [...new Set(rows.map((r) => r.batch_id).filter((id): id is string => id !== null))]
  const batches = batchIds.length
    ? await db.selectFrom('batches').select(['id', 'tool', 'status', 'total', 'created_at']).where('id', 'in', batchIds).where('account_id', '=', scope.accountId).execute()
    : []
  const batchById = new Map(batches.map((b) => [b.id, b]))
  const entries: HistoryEntry[] = []
  const grouped = new Map<string, { kind: 'batch' } & HistoryBatch>()
  const positions = new Map<string, number>()
  for (const row of rows) {
    const run = runOf(row, now)
    const batch = row.batch_id ? batchById.get(row.batch_id) : undefined
    if (!row.batch_id || !batch) {
      entries.push({ kind: 'run', ...run })
      continue
    }
    let group = grouped.get(batch.id)
    if (!group) {
      const createdAt = new Date(batch.created_at).toISOString()
      group = {
        kind: 'batch',
        id: batch.id,
        tool: batch.tool as ToolSlug,
        toolName: TOOLS[batch.tool as ToolSlug]?.name ?? batch.tool,
        status: batch.status,
        total: batch.total,
        done: 0,
        failed: 0,
        noFace: 0,
        credits: 0,
        url: `/tools/batch?batch=${batch.id}`,
        downloadUrl: batch.status === 'completed' ? batchDownloadUrl(batch.id) : null,
        createdAt,
        when: relativeTime(createdAt, now.toISOString()),
        items: [],
      }
      grouped.set(batch.id, group)
      entries.push(group)
    }
    group.items.push(run)
    positions.set(run.id, row.batch_position ?? 0)
    if (run.state === 'done' || run.state === 'no_face') group.done++
    if (run.state === 'no_face') group.noFace++
    if (run.state === 'failed') group.failed++
    group.credits += run.credits ?? 0
  }
  // A batch's files in the order they were sent.
  for (const group of grouped.values()) group.items.sort((a, b) => positions.get(a.id)! - positions.get(b.id)!)
  return entries
}

/** The page: whoever the browser is (visitor, user, or member working as a team), never creating one. */
export async function loadHistoryPage(request: Request, options: { now?: Date; db?: DB } = {}): Promise<HistoryPageData> {
  const now = options.now ?? new Date()
  const db = options.db ?? getDb()
  const resolved = await resolveCaller(request, { create: false, invalidAsGuest: true, now, db })
  if (resolved.kind !== 'caller') return { scope: null, teamName: null, entries: [], now: now.toISOString() }
  const { caller } = resolved
  const entries = await listHistory({ accountId: caller.accountId, userId: caller.userId, teamId: caller.teamId }, { now, db })
  const team = caller.teamId ? await db.selectFrom('teams').select('name').where('id', '=', caller.teamId).executeTakeFirst() : null
  return {
    scope: caller.teamId ? 'team' : caller.source === 'user' ? 'user' : 'visitor',
    teamName: team?.name ?? null,
    entries,
    now: now.toISOString(),
  }
}

