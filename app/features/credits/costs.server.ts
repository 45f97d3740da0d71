// What one run of each tool costs: DESIGN.md's table, overridable with TOOL_COSTS.
import { config } from '~/config.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'

export function toolCost(slug: ToolSlug): number {
  return config().toolCosts[slug] ?? TOOLS[slug].defaultCost
}
