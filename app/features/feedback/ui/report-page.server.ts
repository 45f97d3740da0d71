// The report form's page (/feedback/<job>), server side: its guard and its action. The action reads the
// form (zod), calls reportResult once (feedback.server.ts owns every rule) and answers the outcome as
// data: the page shows it without JavaScript, the fetcher in place with it.
import { data } from '@remix-run/node'
import { z } from 'zod'
import { resolveCaller } from '~/features/account/caller.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { ToolError } from '~/features/jobs/errors.server'
import { findOwnedJob } from '~/features/jobs/jobs.server'
import { PRIVATE_NO_STORE } from '~/http/headers'
import { isUuid } from '~/utils/uuid'
import { reportResult } from '../feedback.server'
import { FEEDBACK_FIELD } from '~/catalog/feedback'
import type { ReportAnswer } from '~/features/tools/ui/report-wrong'

/** Whoever pays for the browser now owns the job (a visitor, a user, or a member working as the team); 404 for anyone else. */
async function ownerOf(request: Request, jobId: string | undefined): Promise<{ accountId: string; jobId: string; tool: ToolSlug; filename: string }> {
  const resolved = jobId && isUuid(jobId) ? await resolveCaller(request, { create: false, invalidAsGuest: true }) : null
  const accountId = resolved?.kind === 'caller' ? resolved.caller.accountId : null
  const job = accountId && jobId ? await findOwnedJob(jobId, accountId) : null
  if (!job || !accountId) throw new Response('Not found', { status: 404, headers: PRIVATE_NO_STORE })
  return { accountId, jobId: job.id, tool: job.tool as ToolSlug, filename: job.filename ?? job.original_name }
}

/** The page's own view of the job: which tool made it and its file's name. */
export async function reportPageView(request: Request, jobId: string | undefined) {
  const owner = await ownerOf(request, jobId)
  return { jobId: owner.jobId, toolName: TOOLS[owner.tool]?.name ?? owner.tool, filename: owner.filename }
}

/** A path on this site only: "/..." but not "//..." (another host) nor a backslash (read as one by browsers). */
const backPath = z
  .string()
  .max(2048)
  .refine((path) => path.startsWith('/') && !path.startsWith('//') && !path.includes('\\'))
  .catch('')

const reportForm = z.object({
  [FEEDBACK_FIELD.note]: z.string().optional(),
  [FEEDBACK_FIELD.back]: backPath.optional(),
})

export async function reportFromForm(request: Request, jobId: string | undefined) {
  const owner = await ownerOf(request, jobId)
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    return data<ReportAnswer>({ ok: false, error: 'The form could not be read. Please send it again.' }, { status: 400, headers: PRIVATE_NO_STORE })
  }
  const fields = reportForm.parse(Object.fromEntries([...form].filter(([, v]) => typeof v === 'string')))
  const back = fields.back || null
  try {
    const report = await reportResult(owner.jobId, owner.accountId, fields.note)
    return data<ReportAnswer>({ ok: true, created: report.created, back }, { headers: PRIVATE_NO_STORE })
  } catch (error) {
    if (error instanceof ToolError && error.status < 500) {
      return data<ReportAnswer>({ ok: false, error: error.message }, { status: error.status, headers: { ...PRIVATE_NO_STORE, ...error.headers } })
    }
    throw error
  }
}
