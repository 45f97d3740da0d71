// The probes' answers, shared by the web routes (/livez, /readyz) and a worker's metrics listener.
import { readiness } from '~/features/health/readiness.server'

export const LIVE_ANSWER = { status: 'ok' } as const

export async function readinessAnswer(): Promise<Response> {
  const report = await readiness()
  return Response.json(report, { status: report.status === 'ok' ? 200 : 503, headers: { 'Cache-Control': 'no-store' } })
}
