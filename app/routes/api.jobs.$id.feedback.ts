// POST /api/jobs/<id>/feedback/: report the job's result as wrong (decision 175). Owner only.
import type { ActionFunctionArgs } from '@remix-run/node'
import { postFeedback } from '~/features/feedback/api.server'
import { runMethodNotAllowed } from '~/http/errors.server'

export function loader() {
  return runMethodNotAllowed()
}

export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return postFeedback(request, params.id ?? '')
}
