// What every tool page's loader reads: the run's cost, the public URL for structured data, and
// whether the models the tool needs are installed (a missing model is said plainly on the page).
import { config } from '~/config.server'
import { toolCost } from '~/features/credits/costs.server'
import type { ToolSlug } from '~/features/tools/catalog'
import { isModelInstalled, requiredModelsFor } from '~/features/tools/models/registry.server'

export function loadToolPage(tool: ToolSlug) {
  return {
    cost: toolCost(tool),
    publicUrl: config().PUBLIC_URL,
    missingModels: requiredModelsFor(tool).filter((id) => !isModelInstalled(id)),
  }
}

export function isGfpganInstalled(): boolean {
  return isModelInstalled('gfpgan')
}
