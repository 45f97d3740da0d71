// GET /console/feedback/export: every report not yet expired, as one zip of bench cases (operators only).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { requireOperator } from '~/features/account/guards.server'
import { exportFilename, exportZip } from '~/features/feedback/export.server'
import { zipDownloadHeaders } from '~/features/feedback/console.server'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const now = new Date()
  return new Response(exportZip('all', now), { headers: zipDownloadHeaders(exportFilename(now)) })
}
