// What one run of each tool costs: DESIGN.md's table, overridable with TOOL_COSTS. The face restorer
// without a usable GFPGAN (Standard detail) has a price of its own when the operator sets one
// (FACE_RESTORER_STANDARD_COST): the page, /pricing, the API docs and the charge all read it here.
import { config } from '~/config.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { gfpganAvailable } from '~/features/tools/models/registry.server'

export function toolCost(slug: ToolSlug): number {
  if (slug === 'face-restorer' && !gfpganAvailable()) {
    const standard = config().FACE_RESTORER_STANDARD_COST
    if (standard !== undefined) return standard
  }
  return config().toolCosts[slug] ?? TOOLS[slug].defaultCost
}
