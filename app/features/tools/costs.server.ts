// What one run of each tool costs: DESIGN.md's table, overridable with TOOL_COSTS. The face restorer
// without a usable GFPGAN (Standard detail) is priced below a real restoration: half its price by default
// (catalog/tools.ts), FACE_RESTORER_STANDARD_COST when the operator sets one. The page, /pricing, the API
// docs and the charge all read it here.
import { config } from '~/config.server'
import { standardDetailCost, TOOLS, type ToolSlug } from '~/catalog/tools'
import { gfpganAvailable } from '~/features/tools/models/registry.server'

export function toolCost(slug: ToolSlug): number {
  const cost = config().toolCosts[slug] ?? TOOLS[slug].defaultCost
  if (slug === 'face-restorer' && !gfpganAvailable()) return config().FACE_RESTORER_STANDARD_COST ?? standardDetailCost(cost)
  return cost
}
