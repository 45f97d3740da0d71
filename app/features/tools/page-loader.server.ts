// What every tool page's loader reads: the run's cost, the public URL for structured data, whether
// the models the tool needs are installed (a missing model is said plainly on the page), the job a
// form posted without JavaScript started (?job=<id>, its owner only: the page follows it until it
// ends) and the result it delivered (as ?result=<id> always has).
import { config } from '~/config.server'
import { resolveCaller } from '~/features/account/caller.server'
import { toolCost } from '~/features/tools/costs.server'
import type { ToolSlug } from '~/catalog/tools'
import { findOwnedJob, jobView } from '~/features/jobs/jobs.server'
import type { JobView } from '~/features/jobs/view'
import { isModelInstalled, requiredModelsFor } from '~/features/tools/models/registry.server'
import { readResultInfo } from '~/features/jobs/results.server'
import { readFactors } from '~/features/jobs/run-rates.server'
import { estimateMs, rateVariant, seedFactor } from '~/features/jobs/run-time'
import type { ToolJobInfo } from '~/features/jobs/jobs.server'
import { downloadUrl, SHOWN_OPTION_FIELDS, type PageTiming, type RunClock, type ToolPageResult } from '~/features/tools/ui/page-result'
import { resultUrl } from '~/features/jobs/view'

export const RESULT_GONE_MESSAGE =
  'This result is no longer available: results are kept for 24 hours, for the browser that made them. Run the tool again.'
export const JOB_GONE_MESSAGE = 'This run does not exist, or it was started in another browser.'

export async function loadToolPage(tool: ToolSlug, request: Request) {
  const posted = await loadPosted(request)
  const timing: PageTiming = { factors: await readFactors(tool), limitMs: config().TOOL_TIMEOUT_MS, renderedAt: Date.now() }
  return {
    cost: toolCost(tool),
    publicUrl: config().PUBLIC_URL,
    missingModels: requiredModelsFor(tool).filter((id) => !isModelInstalled(id)),
    pageResult: posted.pageResult,
    job: posted.job,
    timing,
    jobClock: posted.found ? jobClock(tool, posted.found, timing) : null,
  }
}

/** When the followed job started and how long it was expected to take (the page counts from them). */
function jobClock(tool: ToolSlug, job: ToolJobInfo, timing: PageTiming): RunClock {
  const variant = rateVariant(tool, job.options)
  const factor = timing.factors[variant] ?? seedFactor(tool, variant)
  const expected = job.input_width && job.input_height ? estimateMs({ tool, factor, limitMs: timing.limitMs }, job.input_width, job.input_height) : null
  return { startedAt: new Date(job.created_at).getTime(), estimateMs: expected }
}

async function loadPosted(request: Request): Promise<{ pageResult: ToolPageResult | null; job: JobView | null; found?: ToolJobInfo }> {
  const url = new URL(request.url)
  const jobId = url.searchParams.get('job')
  let resultId = url.searchParams.get('result')
  if (!jobId && !resultId) return { pageResult: null, job: null }
  const caller = await resolveCaller(request, { create: false, invalidAsGuest: true })
  const balance = caller.kind === 'caller' || caller.kind === 'guest-preview' ? caller.balance : null
  const accountId = caller.kind === 'caller' ? caller.caller.accountId : null
  const fieldValues: Record<string, string> = {}
  for (const name of SHOWN_OPTION_FIELDS) {
    const value = url.searchParams.get(name)
    if (value) fieldValues[name] = value
  }
  let job: JobView | null = null
  if (jobId) {
    const found = await findOwnedJob(jobId, accountId)
    if (!found) return { pageResult: { ok: false, status: 404, error: JOB_GONE_MESSAGE, remaining: balance }, job: null }
    job = jobView(found, balance)
    if (found.status === 'failed') {
      return {
        pageResult: { ok: false, status: found.error_status ?? 500, error: found.error ?? 'The run failed.', remaining: balance, fieldValues },
        job,
      }
    }
    if (found.status !== 'succeeded') return { pageResult: null, job, found }
    resultId = found.result_id
  }
  const info = resultId && accountId ? await readResultInfo(resultId, accountId) : null
  if (!resultId || !info) return { pageResult: { ok: false, status: 404, error: RESULT_GONE_MESSAGE, remaining: balance }, job }
  return {
    pageResult: {
      ok: true,
      resultUrl: resultUrl(resultId),
      downloadUrl: downloadUrl(resultId),
      filename: info.filename,
      contentType: info.contentType,
      remaining: balance ?? 0,
      facesFound: info.runDetails.facesFound,
      gfpganAvailable: info.runDetails.gfpganAvailable,
      note: info.runDetails.note,
      model: info.runDetails.model,
      fieldValues,
    },
    job,
  }
}
