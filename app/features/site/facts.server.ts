// Figures the marketing pages state, read from configuration and from real runs, so the copy stays
// true when the operator changes a setting.
import { sql } from 'kysely'
import { config } from '~/config.server'
import { getDb, type DB } from '~/db/db.server'
import { toolCost } from '~/features/tools/costs.server'
import { TOOL_LIST, type ToolSlug } from '~/catalog/tools'
import { singleton } from '~/utils/singleton.server'
import { RENDER_WINDOW_DAYS, type RenderTimes } from './render-times'

export interface CreditFacts {
  guestDaily: number
  userFloor: number
  signupBonus: number
  purchasingPaused: boolean
  costs: Record<ToolSlug, number>
}

export function creditFacts(): CreditFacts {
  const c = config()
  return {
    guestDaily: c.GUEST_DAILY_CREDITS,
    userFloor: c.USER_DAILY_FLOOR,
    signupBonus: c.SIGNUP_BONUS,
    purchasingPaused: c.PURCHASING_PAUSED,
    costs: Object.fromEntries(TOOL_LIST.map((t) => [t.slug, toolCost(t.slug)])) as Record<ToolSlug, number>,
  }
}

const CACHE_MS = 5 * 60 * 1000

/**
 * The median duration of successful runs over the last 30 days (of the named tools, or of all),
 * or null before there are any.
 */
export async function medianRenderTime(options: { tools?: string[]; db?: DB } = {}): Promise<RenderTimes | null> {
  const db = options.db ?? getDb()
  let query = db
    .selectFrom('tool_runs')
    .select([
      sql<number>`count(*)::int`.as('runs'),
      sql<number | null>`percentile_cont(0.5) within group (order by duration_ms)::float8`.as('median'),
    ])
    .where('outcome', '=', 'success')
    .where('created_at', '>', sql<Date>`now() - make_interval(days => ${RENDER_WINDOW_DAYS})`)
  if (options.tools?.length) query = query.where('tool', 'in', options.tools)
  const row = await query.executeTakeFirst()
  if (!row || row.runs === 0 || row.median === null) return null
  return { runs: row.runs, medianMs: Math.round(Number(row.median)) }
}

/** The home page asks on every view; the figure only needs to be minutes fresh. */
export async function cachedMedianRenderTime(): Promise<RenderTimes | null> {
  const cache = singleton('site:render-times', () => ({ at: 0, value: null as RenderTimes | null }))
  if (Date.now() - cache.at < CACHE_MS) return cache.value
  try {
    cache.value = await medianRenderTime()
  } catch {
    // A marketing figure is never worth a failed page.
    cache.value = null
  }
  cache.at = Date.now()
  return cache.value
}
