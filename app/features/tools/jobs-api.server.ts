// The asynchronous API (issue 10): POST /api/jobs/ takes `tool` plus that tool's fields (the same
// limits and checks as its endpoint) and answers 202 at once; GET /api/jobs/<id>/ follows the job;
// GET /api/jobs/<id>/answer/ gives an ended job's answer exactly as the tool's own endpoint would.
// Jobs are their owner's only: anyone else gets 404. `Prefer: wait=N` (RFC 7240) on the POST holds the
// answer up to N seconds for the end of a run expected to take no longer, then answers the job's status
// (decision 184): a short run is known to have ended without a first poll, a round trip that on a slow
// phone link costs most of a second.
import { resolveCaller } from '~/features/account/caller.server'
import { getBalance } from '~/features/credits/ledger.server'
import { isToolSlug, MEGABYTE, TOOLS, type ToolSlug } from '~/catalog/tools'
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { creditsCharged, findOwnedJob, isFinished, jobView, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { acceptToolRun } from '~/features/tools/submit.server'
import { answerFromJob, submissionResponse } from '~/features/jobs/answer.server'
import { ToolError } from '~/features/jobs/errors.server'
import { expectedRunMs, jobTime } from '~/features/jobs/job-time.server'
import { jobUrl, MAX_PREFER_WAIT_SECONDS } from '~/features/jobs/view'
import { signedResultUrl } from '~/features/jobs/result-links.server'
import { waitForJobEnd } from '~/features/jobs/wait.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { anyToolFormLimits, readMultipartForm, type MultipartForm } from '~/features/tools/upload.server'
import { NO_STORE } from '~/http/headers'
import { correctionHooks } from '~/features/tools/correction-hooks.server'
import { runErrorResponse } from '~/http/errors.server'

export const TOOL_MESSAGE = `tool must be one of ${Object.keys(TOOLS).join(', ')}.`
/** The largest upload any tool takes. */
const MAX_FILE_BYTES = Math.max(...Object.values(TOOLS).map((t) => t.maxMegabytes)) * MEGABYTE
/** Every option field of every tool (each tool keeps its own when the form is narrowed to it). */
export const ALL_OPTION_FIELDS = [...new Set(Object.values(TOOLS).flatMap((t) => runnerFor(t.slug).optionFields))]
/** The tools' optional second file fields: a job may carry one besides its file. */
const SECOND_FILE_FIELDS = Object.values(TOOLS).flatMap((t) => runnerFor(t.slug).secondFile?.field ?? [])

export { jobUrl }

async function jobJson(job: ToolJobInfo, remaining: number | null) {
  const view = jobView(job, remaining)
  const time = await jobTime(job)
  return {
    id: view.id,
    tool: view.tool,
    status: view.status,
    progress: view.progress,
    stage: view.stage,
    result_url: view.resultUrl,
    // The same result for anyone holding this link, for an hour (decision 174): read the job again for a fresh one.
    signed_result_url: job.result_id && view.resultUrl ? signedResultUrl(job.result_id) : null,
    error: view.error,
    remaining: view.remaining,
    // What the workspace's progress panel shows (job-time.server.ts): null once the job has ended.
    elapsed_seconds: time.elapsedSeconds,
    estimated_seconds_left: time.estimatedSecondsLeft,
  }
}

/** The seconds of a request's `Prefer: wait=N` (RFC 7240), at most MAX_PREFER_WAIT_SECONDS; 0 without one. */
export function preferredWaitSeconds(request: Request): number {
  const wait = /(?:^|[\s,;])wait\s*=\s*"?(\d{1,6})"?(?=$|[\s,;])/i.exec(request.headers.get('Prefer') ?? '')
  return wait ? Math.min(Number(wait[1]), MAX_PREFER_WAIT_SECONDS) : 0
}

/** A job's form: one tool's file and its optional second file, with any tool's options (server.ts's Expect: 100-continue reads its bodyLimit). */
export const JOB_FORM_LIMITS = anyToolFormLimits(['tool', ...ALL_OPTION_FIELDS], 2, 2 * MAX_FILE_BYTES, SECOND_FILE_FIELDS)

export async function submitJob(request: Request): Promise<Response> {
  // One read of the body, by the same busboy reader the tools use (undici's formData() refuses
  // RFC-legal forms busboy accepts: quoted boundaries, `;` in file names...).
  let form: MultipartForm
  try {
    form = await readMultipartForm(request, JOB_FORM_LIMITS)
  } catch (thrown) {
    if (thrown instanceof ToolError) return runErrorResponse(thrown.status, thrown.message)
    throw thrown
  }
  const tool = form.fields.tool?.trim() ?? null
  if (!tool || !isToolSlug(tool)) return runErrorResponse(400, TOOL_MESSAGE)
  const accepted = await acceptToolRun(request, tool, form)
  if (!accepted.ok) return submissionResponse(accepted)
  const headers: Record<string, string> = { ...NO_STORE, ...accepted.headers, Location: jobUrl(accepted.job.id) }
  if (accepted.replayed) headers['Idempotent-Replayed'] = 'true'
  headers[CREDITS_CHARGED_HEADER] = String(accepted.replayed ? 0 : creditsCharged(accepted.job))
  const json = { id: accepted.job.id, status: accepted.job.status, url: jobUrl(accepted.job.id) }
  const status = accepted.replayed ? 200 : 202
  const wait = preferredWaitSeconds(request)
  // Only for a run expected to end within the wait: a longer one is answered at once, so that its caller
  // (the workspace's progress bar) follows it from the start.
  if (wait > 0 && ((await expectedRunMs(accepted.job)) ?? 0) <= wait * 1000) {
    headers['Preference-Applied'] = `wait=${wait}`
    const ended = await waitForJobEnd(accepted.job.id, wait * 1000, accepted.job)
    // Ended in time: its status as GET /api/jobs/<id>/ gives it (the url kept), so no poll is needed to know;
    // the balance as it is now (a failed run has been refunded meanwhile).
    if (ended && !ended.interrupted) {
      const balance = await getBalance(ended.job.account_id)
      headers['X-Credits-Remaining'] = String(balance)
      return Response.json({ ...(await jobJson(ended.job, balance)), url: json.url }, { status, headers })
    }
  }
  return Response.json(json, { status, headers })
}

async function ownedJob(request: Request, id: string) {
  const caller = await resolveCaller(request, { create: false })
  const accountId = caller.kind === 'caller' ? caller.caller.accountId : null
  return { job: await findOwnedJob(id, accountId), accountId }
}

const JOB_NOT_FOUND = 'No such job.'

export async function readJob(request: Request, id: string): Promise<Response> {
  const { job, accountId } = await ownedJob(request, id)
  if (!job || !accountId) return runErrorResponse(404, JOB_NOT_FOUND)
  const json: Record<string, unknown> = await jobJson(job, await getBalance(accountId))
  // The face blurrer's detected boxes, in the result's pixels: a caller corrects them with POST .../corrections/.
  if (job.tool === 'face-blurrer' && job.status === 'succeeded') json.faces = (await correctionHooks().detectedFaces(job.id, accountId)) ?? []
  return Response.json(json, { headers: NO_STORE })
}

export async function readJobAnswer(request: Request, id: string): Promise<Response> {
  const { job } = await ownedJob(request, id)
  if (!job) return runErrorResponse(404, JOB_NOT_FOUND)
  if (!isFinished(job)) return submissionResponse({ ok: false, tool: job.tool as ToolSlug, status: 409, error: 'The job has not ended yet.', remaining: null, headers: {} })
  return submissionResponse(await answerFromJob(job, undefined, {}))
}
