// POST /api/jobs/<id>/feedback/ (decision 175): "this result is wrong", with an optional note. Owner
// only (404 for anyone else), authenticated as every /api route (an API key, or the session cookie;
// the same-origin check on cookie posts is server.ts's). 201 for a new report, 200 when it replaced
// the job's earlier one.
import { z } from 'zod'
import { resolveCaller } from '~/features/account/caller.server'
import { ToolError } from '~/features/jobs/errors.server'
import { parseBody } from '~/http/body.server'
import { NO_STORE } from '~/http/headers'
import { runErrorResponse } from '~/http/errors.server'
import { reportResult, type ReportSummary } from './feedback.server'
import { REPORT_NOT_FOUND_MESSAGE } from '~/catalog/feedback'

const feedbackBody = z.object({ note: z.string({ error: 'note must be text.' }).nullish() })

/** The report as the API answers it (snake_case). */
export function reportJson(report: ReportSummary) {
  return {
    job_id: report.jobId,
    tool: report.tool,
    note: report.note,
    created: report.created,
    reported_at: report.reportedAt,
    expires_at: report.expiresAt,
    input_kept: report.hasInput,
    expected_matte: report.hasExpectedMatte,
  }
}

export async function postFeedback(request: Request, jobId: string): Promise<Response> {
  const caller = await resolveCaller(request, { create: false })
  if (caller.kind !== 'caller') return runErrorResponse(404, REPORT_NOT_FOUND_MESSAGE)
  const body = await parseBody(request, feedbackBody)
  if ('response' in body) return body.response
  try {
    const report = await reportResult(jobId, caller.caller.accountId, body.data.note)
    return Response.json(reportJson(report), { status: report.created ? 201 : 200, headers: NO_STORE })
  } catch (error) {
    if (error instanceof ToolError) return runErrorResponse(error.status, error.message, null, error.headers)
    throw error
  }
}
