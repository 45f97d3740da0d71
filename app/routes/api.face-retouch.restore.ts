// POST /api/face-retouch/restore/ (spec §7): the face-restorer tool for script and API clients.
import type { ActionFunctionArgs } from '@remix-run/node'
import { runMethodNotAllowed } from '~/http/errors.server'
import { runToolSubmission } from '~/features/tools/submit.server'
import { submissionResponse } from '~/features/jobs/answer.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return submissionResponse(await runToolSubmission(request, 'face-restorer'))
}

export const loader = () => runMethodNotAllowed()
