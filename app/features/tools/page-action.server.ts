// The tool pages' action for forms posted without JavaScript: the same job as the /api endpoints.
// An accepted job redirects to the page with ?job=<id> (Post/Redirect/Get): the page follows the job
// (it refreshes itself until the job ends) and then shows the result, so reloading never runs and
// charges again, leaving does not lose the run, and the page is drawn with the caller's cookie (a
// new visitor's too). A refusal (bad input, no credits) is drawn at once, as before.
import { data, redirect } from '@remix-run/node'
import type { ToolSlug } from '~/catalog/tools'
import { acceptToolRun } from '~/features/tools/submit.server'
import { SHOWN_OPTION_FIELDS, type ToolPageResult } from '~/features/tools/ui/page-result'
import { TOO_SLOW_CODE } from '~/features/jobs/view'
import { runnerFor } from '~/features/tools/runners/index.server'
import { fileTooLargeMessage, toolBodyLimit } from '~/features/tools/upload.server'
import { UNUSABLE_FILE_STATUSES, unusableFileMessage } from '~/features/tools/ui/tool-messages'

// An HTML page must not carry the API's content headers; only these travel with it.
const FORWARDED_HEADERS = ['set-cookie', 'retry-after', 'x-credits-remaining']

export function pageHeaders(source: Record<string, string>): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(source)) {
    if (FORWARDED_HEADERS.includes(name.toLowerCase())) headers.append(name, value)
  }
  return headers
}

/** The most a tool's form (page or API) may weigh: its file, its optional second file, the options. */
export function toolFormBodyLimit(tool: ToolSlug): number {
  return toolBodyLimit(tool, Boolean(runnerFor(tool).secondFile))
}

/**
 * A post whose declared Content-Length is past what the tool takes is refused from its headers alone:
 * nothing of the body is read, no caller is made, nothing is counted or charged (issue 21). The
 * server discards the unread body after answering, so the browser, which sends the whole form
 * before it reads an answer, still gets the page; past four times the limit the answer also says
 * `Connection: close`, so that clients which read while sending stop, and the connection closes
 * once the rest is discarded, within the server's bound (decision 161).
 */
export function refuseOversizePost(request: Request, tool: ToolSlug) {
  const declared = Number(request.headers.get('content-length') ?? '')
  const limit = toolFormBodyLimit(tool)
  if (!Number.isFinite(declared) || declared <= limit) return null
  const refused: ToolPageResult = { ok: false, status: 413, error: unusableFileMessage(fileTooLargeMessage(tool)), remaining: null }
  const headers = new Headers()
  if (declared > 4 * limit) headers.set('Connection', 'close')
  return data(refused, { status: 413, headers })
}

export async function runToolPageAction(request: Request, tool: ToolSlug) {
  const oversize = refuseOversizePost(request, tool)
  if (oversize) return oversize
  const accepted = await acceptToolRun(request, tool)
  const headers = pageHeaders(accepted.headers)
  if (!accepted.ok) {
    const failed: ToolPageResult = {
      ok: false,
      status: accepted.status,
      // A refused file says so in the page's words; the API keeps its own (spec §8).
      error: UNUSABLE_FILE_STATUSES.includes(accepted.status) ? unusableFileMessage(accepted.error) : accepted.error,
      remaining: accepted.remaining,
      gfpganAvailable: accepted.gfpganAvailable,
      fieldValues: accepted.fieldValues,
      ...(accepted.tooSlow ? { code: TOO_SLOW_CODE } : {}),
    }
    return data(failed, { status: accepted.status, headers })
  }
  const target = new URLSearchParams({ job: accepted.job.id })
  // The options the run used (the blur radius, the SVG format) travel along for the page to show.
  for (const name of SHOWN_OPTION_FIELDS) {
    const value = accepted.fieldValues[name]
    if (value) target.set(name, value)
  }
  return redirect(`${new URL(request.url).pathname}?${target}`, { headers })
}
