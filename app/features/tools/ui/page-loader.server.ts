// What every tool page's loader reads: the run's cost, the public URL for structured data, whether
// the models the tool needs are installed (a missing model is said plainly on the page), and the
// result of a run posted without JavaScript (?result=<id>, readable by its owner only).
import { config } from '~/config.server'
import { resolveCaller } from '~/features/credits/caller.server'
import { toolCost } from '~/features/credits/costs.server'
import type { ToolSlug } from '~/features/tools/catalog'
import { isModelInstalled, requiredModelsFor } from '~/features/tools/models/registry.server'
import { readResultInfo } from '~/features/tools/results.server'
import { downloadUrl, resultUrl, SHOWN_OPTION_FIELDS, type ToolPageResult } from './page-result'

export const RESULT_GONE_MESSAGE =
  'This result is no longer available: results are kept for 24 hours, for the browser that made them. Run the tool again.'

export async function loadToolPage(tool: ToolSlug, request: Request) {
  return {
    cost: toolCost(tool),
    publicUrl: config().PUBLIC_URL,
    missingModels: requiredModelsFor(tool).filter((id) => !isModelInstalled(id)),
    pageResult: await loadPostedResult(request),
  }
}

async function loadPostedResult(request: Request): Promise<ToolPageResult | null> {
  const url = new URL(request.url)
  const id = url.searchParams.get('result')
  if (!id) return null
  const caller = await resolveCaller(request, { create: false, invalidAsGuest: true })
  const balance = caller.kind === 'caller' || caller.kind === 'guest-preview' ? caller.balance : null
  const info = caller.kind === 'caller' ? await readResultInfo(id, caller.caller.accountId) : null
  if (!info) return { ok: false, status: 404, error: RESULT_GONE_MESSAGE, remaining: balance }
  const fieldValues: Record<string, string> = {}
  for (const name of SHOWN_OPTION_FIELDS) {
    const value = url.searchParams.get(name)
    if (value) fieldValues[name] = value
  }
  return {
    ok: true,
    resultUrl: resultUrl(id),
    downloadUrl: downloadUrl(id),
    filename: info.filename,
    contentType: info.contentType,
    remaining: balance ?? 0,
    facesFound: info.runDetails.facesFound,
    gfpganAvailable: info.runDetails.gfpganAvailable,
    note: info.runDetails.note,
    fieldValues,
  }
}
