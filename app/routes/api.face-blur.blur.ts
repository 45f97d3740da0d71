// POST /api/face-blur/blur/ (spec §7): the face-blurrer tool for script and API clients.
import type { ActionFunctionArgs } from '@remix-run/node'
import { runMethodNotAllowed } from '~/http/errors.server'
import { runToolSubmission } from '~/features/tools/submit.server'
import { submissionResponse } from '~/features/jobs/answer.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return submissionResponse(await runToolSubmission(request, 'face-blurrer'))
}

export const loader = () => runMethodNotAllowed()
