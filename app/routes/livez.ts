// Liveness: the process runs and its event loop answers. Nothing else is checked: a restart would
// not bring a lost database back (that is /readyz's business).
import { LIVE_ANSWER } from '~/features/health/probes.server'

export function loader() {
  return Response.json(LIVE_ANSWER, { headers: { 'Cache-Control': 'no-store' } })
}
