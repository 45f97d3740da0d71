// The figures the /api documentation shows that depend on the running configuration: the public
// address, each tool's cost, the per-key rate limit and the webhook retry schedule.
import { config } from '~/config.server'
import { toolCost } from '~/features/tools/costs.server'
import { TOOL_LIST, type ToolSlug } from '~/catalog/tools'
import { MAX_BATCH_FILES } from '~/features/batches/batches.server'
import { RETRY_DELAYS_SECONDS, WEBHOOK_TIMEOUT_MS } from '~/features/webhooks/delivery.server'

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${seconds / 60} min`
  return `${seconds / 3600} h`
}

export function apiDocsFacts() {
  const costs = {} as Record<ToolSlug, number>
  for (const tool of TOOL_LIST) costs[tool.slug] = toolCost(tool.slug)
  return {
    origin: new URL(config().PUBLIC_URL).origin,
    costs,
    rateLimitPerMinute: config().API_KEY_RATE_LIMIT,
    retrySchedule: RETRY_DELAYS_SECONDS.map(duration),
    attempts: RETRY_DELAYS_SECONDS.length + 1,
    timeoutSeconds: WEBHOOK_TIMEOUT_MS / 1000,
    batchMaxFiles: MAX_BATCH_FILES,
    batchMaxMegabytes: config().BATCH_MAX_MEGABYTES,
  }
}
