// GET /api/jobs/<id>/corrections/: what the result can be corrected with; POST: apply a correction
// (re-rendered, no model run, no charge). Owner only. See features/corrections (decision 157).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { getCorrections, postCorrections } from '~/features/corrections/api.server'
import { runMethodNotAllowed } from '~/http/errors.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return getCorrections(request, params.id ?? '')
}

export function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return postCorrections(request, params.id ?? '')
}
