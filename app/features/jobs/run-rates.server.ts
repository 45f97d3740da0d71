// This server's measured speed, per tool and variant (run-time.ts rateVariant), kept in tool_rates:
// a factor on the tool's seed cost, moved by every delivered run (an exponential moving average, the
// first run replacing the seed) and raised by a run stopped at the time limit (its time is a lower
// bound). Read before a run is admitted and by the tool pages, so the estimate the browser makes and
// the one the server enforces are the same (docs/decisions/132).
import { sql } from 'kysely'
import { config } from '~/config.server'
import { getDb, type DB } from '~/db/db.server'
import { logger } from '~/utils/logger.server'
import type { ToolSlug } from '~/catalog/tools'
import { isEstimated, seedFactor, seedMs, type RunTiming } from './run-time'

/** How much one run moves the estimate (the rest is the estimate so far). */
export const RATE_WEIGHT = 0.3
/** A measurement outside these bounds (a paused machine, a clock jump) is clamped before it counts. */
const FACTOR_BOUNDS = { min: 0.02, max: 100 } as const

/** The measured speed for runs of this tool and variant (the seed when nothing was measured yet). */
export async function readTiming(tool: ToolSlug, variant: string, db: DB = getDb()): Promise<RunTiming> {
  const row = await db.selectFrom('tool_rates').select('factor').where('tool', '=', tool).where('variant', '=', variant).executeTakeFirst()
  return { tool, factor: row?.factor ?? seedFactor(tool, variant), limitMs: config().TOOL_TIMEOUT_MS }
}

/** Every variant's factor measured for a tool (a page picks the one its form asks for). */
export async function readFactors(tool: ToolSlug, db: DB = getDb()): Promise<Record<string, number>> {
  const rows = await db.selectFrom('tool_rates').select(['variant', 'factor']).where('tool', '=', tool).execute()
  return Object.fromEntries(rows.map((row) => [row.variant, row.factor]))
}

export interface MeasuredRun {
  tool: ToolSlug
  variant: string
  width: number | null
  height: number | null
  runMs: number
  /** The run was stopped at the time limit: it would have taken at least runMs. */
  stopped?: boolean
}

/** The speed one run measured, against the seed (null when it tells nothing). */
export function measuredFactor(run: MeasuredRun): number | null {
  if (!isEstimated(run.tool) || !run.width || !run.height || !(run.runMs > 0)) return null
  const factor = run.runMs / seedMs(run.tool, run.width, run.height)
  return Math.min(FACTOR_BOUNDS.max, Math.max(FACTOR_BOUNDS.min, factor))
}

/** Moves the tool's speed by one run. Best effort: an estimate that missed one update is still an estimate. */
export async function recordRunTime(run: MeasuredRun, db: DB = getDb()): Promise<void> {
  const observed = measuredFactor(run)
  if (observed === null) return
  try {
    await db
      .insertInto('tool_rates')
      .values({ tool: run.tool, variant: run.variant, factor: observed, samples: 1 })
      .onConflict((oc) =>
        oc.columns(['tool', 'variant']).doUpdateSet({
          // One statement, so two workers finishing at once both count.
          factor: run.stopped
            ? sql<number>`greatest(tool_rates.factor, excluded.factor)`
            : sql<number>`tool_rates.factor * ${1 - RATE_WEIGHT} + excluded.factor * ${RATE_WEIGHT}`,
          samples: sql<number>`tool_rates.samples + 1`,
          updated_at: sql<Date>`now()`,
        }),
      )
      .execute()
  } catch (error) {
    logger.warn({ err: (error as Error).message, tool: run.tool }, 'run time not recorded')
  }
}
