// GET /api/jobs/<id>/: the job's status, progress and result URL, for its owner only (404 otherwise).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { readJob } from '~/features/tools/jobs-api.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return readJob(request, params.id ?? '')
}
