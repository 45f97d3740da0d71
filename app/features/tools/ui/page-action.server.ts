// The tool pages' action for forms posted without JavaScript: the same run as the /api endpoints,
// with the result kept in the results store. A run that delivered redirects to the page with
// ?result=<id> (Post/Redirect/Get), so reloading the result never runs and charges again, and the
// page is drawn with the caller's cookie (a new visitor's too) and the balance after the run.
import { data, redirect } from '@remix-run/node'
import type { ToolSlug } from '~/features/tools/catalog'
import { runToolSubmission } from '~/features/tools/submission.server'
import { SHOWN_OPTION_FIELDS, type ToolPageResult } from './page-result'

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
  const submission = await runToolSubmission(request, tool, { storeResult: true })
  const headers = pageHeaders(submission.headers)
  if (!submission.ok) {
    const failed: ToolPageResult = {
      ok: false,
      status: submission.status,
      error: submission.error,
      remaining: submission.remaining,
      gfpganAvailable: submission.gfpganAvailable,
      fieldValues: submission.fieldValues,
    }
    return data(failed, { status: submission.status, headers })
  }
  if (!submission.resultId) {
    // storeResult was asked for; a missing id means the store failed after the run was charged.
    const failed: ToolPageResult = { ok: false, status: 500, error: 'The result could not be stored.', remaining: submission.remaining }
    return data(failed, { status: 500, headers })
  }
  const target = new URLSearchParams({ result: submission.resultId })
  // The options the run used (the blur radius, the SVG format) travel along for the page to show.
  for (const name of SHOWN_OPTION_FIELDS) {
    const value = submission.fieldValues?.[name]
    if (value) target.set(name, value)
  }
  return redirect(`${new URL(request.url).pathname}?${target}`, { headers })
}
