// The studio's batch screen (/tools/batch), server side. The tool is chosen first (?tool=<slug>, a
// link per tool), so the form carries that tool's option controls only, under the API's own field
// names. The form posts to the same acceptBatch as POST /api/batches/, then redirects to
// ?batch=<id> (Post/Redirect/Get), which draws the batch for its owner; without JavaScript that page
// refreshes itself until every file has run, with JavaScript it polls the batch's JSON.
import { data, redirect } from '@remix-run/node'
import { config } from '~/config.server'
import { resolveCaller } from '~/features/account/caller.server'
import { toolCost } from '~/features/tools/costs.server'
import { isToolSlug, TOOL_LIST, type ToolSlug } from '~/catalog/tools'
import { isModelInstalled, requiredModelsFor } from '~/features/tools/models/registry.server'
import { pageHeaders } from '~/features/tools/page-action.server'
import { acceptBatch } from './api.server'
import { findOwnedBatch, type BatchView } from './batches.server'
import { MAX_BATCH_FILES } from '../../catalog/batches'

export interface BatchLimits {
  maxFiles: number
  /** The whole upload (BATCH_MAX_MEGABYTES). */
  maxMegabytes: number
}

export interface BatchPageData {
  /** The chosen tool: the shown batch's, else ?tool=, else the first tool. */
  tool: ToolSlug
  /** Credits per file for that tool. */
  cost: number
  limits: BatchLimits
  missingModels: string[]
  batch: BatchView | null
  /** A ?batch= that names nothing of this caller's. */
  notFound: boolean
}

export function chosenTool(value: string | null): ToolSlug {
  return value && isToolSlug(value) ? value : TOOL_LIST[0]!.slug
}

export async function loadBatchPage(request: Request): Promise<BatchPageData> {
  const url = new URL(request.url)
  const id = url.searchParams.get('batch')
  let batch: BatchView | null = null
  if (id) {
    const caller = await resolveCaller(request, { create: false, invalidAsGuest: true })
    batch = await findOwnedBatch(id, caller.kind === 'caller' ? caller.caller.accountId : null)
  }
  const tool = batch?.tool ?? chosenTool(url.searchParams.get('tool'))
  return {
    tool,
    cost: toolCost(tool),
    limits: { maxFiles: MAX_BATCH_FILES, maxMegabytes: config().BATCH_MAX_MEGABYTES },
    missingModels: requiredModelsFor(tool).filter((model) => !isModelInstalled(model)),
    batch,
    notFound: Boolean(id) && !batch,
  }
}

/** What the page is told of a refused post (no JavaScript); nothing was stored or charged. */
export interface BatchPageRefusal {
  error: string
  /** Past the member's monthly cap: what the batch would cost, for the over-cap panel and its way on. */
  overCapCost?: number
}

export async function batchPageAction(request: Request) {
  const accepted = await acceptBatch(request)
  if (!accepted.ok) {
    const refused: BatchPageRefusal = { error: accepted.error, ...(accepted.overCapCost === undefined ? {} : { overCapCost: accepted.overCapCost }) }
    return data(refused, { status: accepted.status, headers: pageHeaders(accepted.headers) })
  }
  const headers = new Headers()
  if (accepted.setCookie) headers.append('Set-Cookie', accepted.setCookie)
  return redirect(`/tools/batch?batch=${accepted.batch.id}`, { status: 303, headers })
}
