// The tool pages' action for forms posted without JavaScript: the same job as the /api endpoints.
// An accepted job redirects to the page with ?job=<id> (Post/Redirect/Get): the page follows the job
// (it refreshes itself until the job ends) and then shows the result, so reloading never runs and
// charges again, leaving does not lose the run, and the page is drawn with the caller's cookie (a
// new visitor's too). A refusal (bad input, no credits) is drawn at once, as before.
import { data, redirect } from '@remix-run/node'
import type { ToolSlug } from '~/features/tools/catalog'
import { acceptToolRun } from '~/features/tools/jobs/submit.server'
import { SHOWN_OPTION_FIELDS, TOO_SLOW_CODE, type ToolPageResult } from './page-result'

// An HTML page must not carry the API's content headers; only these travel with it.
const FORWARDED_HEADERS = ['set-cookie', 'retry-after', 'x-credits-remaining']

export function pageHeaders(source: Record<string, string>): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(source)) {
    if (FORWARDED_HEADERS.includes(name.toLowerCase())) headers.append(name, value)
  }
  return headers
}

export async function runToolPageAction(request: Request, tool: ToolSlug) {
  const accepted = await acceptToolRun(request, tool)
  const headers = pageHeaders(accepted.headers)
  if (!accepted.ok) {
    const failed: ToolPageResult = {
      ok: false,
      status: accepted.status,
      error: accepted.error,
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
