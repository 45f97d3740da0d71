// GET /console/feedback/<job>/export: one report as a zip holding its case's folder (operators only).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { requireOperator } from '~/features/account/guards.server'
import { readReportFacts } from '~/features/feedback/store.server'
import { exportFilename, exportZip } from '~/features/feedback/export.server'
import { zipDownloadHeaders } from '~/features/feedback/console.server'
import { isUuid } from '~/utils/uuid'

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request)
  const jobId = params.jobId ?? ''
  const now = new Date()
  if (!isUuid(jobId) || !(await readReportFacts(jobId, now))) throw new Response('Not found', { status: 404 })
  return new Response(exportZip([jobId], now), { headers: zipDownloadHeaders(exportFilename(now, jobId)) })
}
