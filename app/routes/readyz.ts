// Readiness: 200 when this process can serve (and run jobs, for a worker role), else 503; the body
// lists each check.
import { readinessAnswer } from '~/features/health/probes.server'

export async function loader() {
  return readinessAnswer()
}
