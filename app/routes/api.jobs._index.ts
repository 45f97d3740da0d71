// POST /api/jobs/: a tool run as a job, answered at once (202 + Location); see tools/jobs-api.server.ts.
import type { ActionFunctionArgs } from '@remix-run/node'
import { runMethodNotAllowed } from '~/http/errors.server'
import { submitJob } from '~/features/tools/jobs-api.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return submitJob(request)
}

export const loader = () => runMethodNotAllowed()
