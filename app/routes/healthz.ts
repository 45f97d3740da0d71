// GET /healthz: is the studio up. Anonymous callers get the status, the database's reachability and
// the installed models; the details go only to loopback, METRICS_TOKEN and operators (decision 162).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { healthReport } from '~/features/health/health-report.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const report = await healthReport(request)
  return Response.json(report.body, { status: report.status, headers: { 'Cache-Control': 'no-store', Vary: 'Authorization, Cookie' } })
}
