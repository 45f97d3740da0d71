// GET /api/jobs/<id>/answer/: an ended job's answer exactly as its tool's endpoint gives it (the
// browser follows a job, then reads this). Owner only.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { readJobAnswer } from '~/features/tools/jobs-api.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return readJobAnswer(request, params.id ?? '')
}
