// What the MCP tools ask of the studio: the same domain functions the /api routes call, with a Request
// built from the agent's key, team and idempotency key. Nothing here decides a charge, a limit or an
// answer: a run through MCP is metered, refused and recorded exactly as the same call on the API.
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { resolveCaller, TEAM_HEADER } from '~/features/account/caller.server'
import { creditBalance } from '~/features/account/balance.server'
import { readBatch, submitBatch } from '~/features/batches/api.server'
import { submissionResponse } from '~/features/jobs/answer.server'
import { runToolSubmission } from '~/features/tools/submit.server'
import { findJob } from '~/features/jobs/jobs.server'
import { signedResultUrl } from '~/features/jobs/result-links.server'
import { postFeedback } from '~/features/feedback/api.server'
import { feedbackApiPath } from '~/catalog/feedback'
import { readResult, type StoredResult } from '~/features/jobs/results.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { config } from '~/config.server'
import { CLIENT_ADDRESS_HEADER } from '~/features/security/client-address.server'

/** Who the agent is: the headers its own request to /mcp carried (a key, and a team to work as). */
export interface McpCaller {
  authorization: string
  team: string | null
  /** A test key's calls run the whole contract and are never charged (as on the API). */
  testMode: boolean
  /** The agent's address as the server saw it (rate limits and logs read it as on the API). */
  clientAddress: string | null
}

/** One file as the agent gave it, already turned into bytes. */
export interface McpFile {
  bytes: Buffer
  filename: string
}

export interface CallOptions {
  team?: string | null
  idempotencyKey?: string | null
}

function headersFor(caller: McpCaller, options: CallOptions = {}): Headers {
  const headers = new Headers({ Authorization: caller.authorization })
  if (caller.clientAddress) headers.set(CLIENT_ADDRESS_HEADER, caller.clientAddress)
  const team = options.team ?? caller.team
  if (team) headers.set(TEAM_HEADER, team)
  if (options.idempotencyKey) headers.set('Idempotency-Key', options.idempotencyKey)
  return headers
}

/** The address the same call has on the API (links in answers are built from the request's URL). */
function apiUrl(path: string): string {
  return new URL(path, config().PUBLIC_URL).toString()
}

function multipart(fileField: string, files: McpFile[], fields: Record<string, string>): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  for (const file of files) form.append(fileField, new Blob([new Uint8Array(file.bytes)]), file.filename)
  return form
}

/** POST <tool's endpoint>: the synchronous run, answered as the endpoint answers it. */
export async function runTool(caller: McpCaller, tool: ToolSlug, file: McpFile, fields: Record<string, string>, options: CallOptions = {}): Promise<Response> {
  const request = new Request(apiUrl(TOOLS[tool].apiPath), {
    method: 'POST',
    headers: headersFor(caller, options),
    body: multipart(TOOLS[tool].fileField, [file], fields),
  })
  return submissionResponse(await runToolSubmission(request, tool))
}

/** POST /api/batches/: many files through one tool (202 with the batch, nothing charged yet). */
export async function startBatch(caller: McpCaller, tool: ToolSlug, files: McpFile[], fields: Record<string, string>, options: CallOptions = {}): Promise<Response> {
  const request = new Request(apiUrl('/api/batches/'), {
    method: 'POST',
    headers: headersFor(caller, options),
    body: multipart(TOOLS[tool].fileField, files, { ...fields, tool }),
  })
  return submitBatch(request)
}

export function batchStatus(caller: McpCaller, id: string, options: CallOptions = {}): Promise<Response> {
  return readBatch(new Request(apiUrl(`/api/batches/${encodeURIComponent(id)}/`), { headers: headersFor(caller, options) }), id)
}

/**
 * The signed link to a run's result (decision 174), as GET /api/jobs/<id>/ gives it in signed_result_url, made
 * absolute; null while the job has no result. The job is the one the run's own answer named
 * (X-Facet-Job-Id), so no owner check is owed, and nothing else of the job's status is read.
 */
export async function signedResultLinkOf(jobId: string): Promise<string | null> {
  const job = await findJob(jobId)
  return job?.result_id ? apiUrl(signedResultUrl(job.result_id)) : null
}

/** POST /api/jobs/<id>/feedback/: the job's result reported as wrong, with an optional note (decision 175). */
export function reportWrongResult(caller: McpCaller, id: string, note: string | undefined, options: CallOptions = {}): Promise<Response> {
  const headers = headersFor(caller, options)
  headers.set('Content-Type', 'application/json')
  return postFeedback(new Request(apiUrl(feedbackApiPath(encodeURIComponent(id))), { method: 'POST', headers, body: JSON.stringify({ note: note ?? null }) }), id)
}

/** GET /api/credits/balance/ for the caller (the team's balance when working as a team). */
export async function balance(caller: McpCaller, options: CallOptions = {}): Promise<{ balance: number } | { error: string; status: number }> {
  const outcome = await creditBalance(new Request(apiUrl('/api/credits/balance/'), { headers: headersFor(caller, options) }))
  if (outcome.kind === 'balance') return { balance: outcome.credits.balance }
  if (outcome.kind === 'team-refused') return { error: outcome.message, status: outcome.status }
  return { error: 'The API key names no live account.', status: 401 }
}

/** What an answer says it charged and what is left (absent on refusals that charged nothing). */
export function creditsOf(response: Response): { charged: number; remaining: number | null } {
  const remaining = response.headers.get('X-Credits-Remaining')
  return { charged: Number(response.headers.get(CREDITS_CHARGED_HEADER) ?? 0), remaining: remaining === null ? null : Number(remaining) }
}

/** A stored result the caller owns (the restorer's restored_url), as GET /api/results/<id> reads it. */
export async function storedResult(caller: McpCaller, url: string, options: CallOptions = {}): Promise<StoredResult | null> {
  const id = /\/api\/results\/([^/?#]+)/.exec(url)?.[1]
  if (!id) return null
  const resolution = await resolveCaller(new Request(apiUrl(url), { headers: headersFor(caller, options) }), { create: false })
  return readResult(id, resolution.kind === 'caller' ? resolution.caller.accountId : null)
}
