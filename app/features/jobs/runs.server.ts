// Every tool run is recorded: the source of real render-time figures (no invented "2.1 s").
import { sql } from 'kysely'
import { getDb, type DB, type DbOrTx } from '~/db/db.server'
import { logger } from '~/utils/logger.server'
import type { ToolSlug } from '~/catalog/tools'
import type { RunOutcome } from './errors.server'

export interface ToolRunRecord {
  tool: ToolSlug
  accountId: string | null
  outcome: RunOutcome
  error?: string | null
  durationMs: number
  modelMs?: number | null
  inputBytes?: number | null
  inputWidth?: number | null
  inputHeight?: number | null
  outputBytes?: number | null
  /** The API key the run was made with, if any (per-key run counts on the dashboard). */
  apiKeyId?: string | null
  /** The model that made the result, for tools with a choice of models. */
  model?: string | null
}

/** Recording must never turn a delivered run into a failed request: errors are logged, not thrown. */
export async function recordToolRun(run: ToolRunRecord, db: DB = getDb()): Promise<void> {
  try {
    await insertToolRun(run, db)
  } catch (error) {
    logger.warn({ err: (error as Error).message, tool: run.tool }, 'could not record tool run')
  }
}

/** The row itself, inside a caller's transaction (a job's outcome records its run with it, once). */
export async function insertToolRun(run: ToolRunRecord, dbOrTx: DbOrTx): Promise<void> {
  await dbOrTx
      .insertInto('tool_runs')
      .values({
        tool: run.tool,
        account_id: run.accountId,
        outcome: run.outcome,
        error: run.error ? run.error.slice(0, 500) : null,
        duration_ms: Math.round(run.durationMs),
        model_ms: run.modelMs == null ? null : Math.round(run.modelMs),
        input_bytes: run.inputBytes ?? null,
        input_width: run.inputWidth ?? null,
        input_height: run.inputHeight ?? null,
        output_bytes: run.outputBytes ?? null,
        ...(run.apiKeyId ? { api_key_id: run.apiKeyId } : {}),
        ...(run.model ? { model: run.model } : {}),
      })
      .execute()
}

export interface RenderTimes {
  tool: string
  runs: number
  p50Ms: number | null
  p95Ms: number | null
}

/** Median and 95th percentile of successful runs per tool, over the last `days`. */
export async function renderTimes(days = 30, db: DB = getDb()): Promise<RenderTimes[]> {
  const rows = await db
    .selectFrom('tool_runs')
    .select([
      'tool',
      sql<number>`count(*)::int`.as('runs'),
      sql<number | null>`(percentile_cont(0.5) within group (order by duration_ms))::int`.as('p50Ms'),
      sql<number | null>`(percentile_cont(0.95) within group (order by duration_ms))::int`.as('p95Ms'),
    ])
    .where('outcome', 'in', ['success', 'no_face'])
    .where('created_at', '>', sql<Date>`now() - make_interval(days => ${days})`)
    .groupBy('tool')
    .orderBy('tool')
    .execute()
  return rows
}
