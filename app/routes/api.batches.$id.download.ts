// GET /api/batches/<id>/download/: an ended batch's results as a zip, with errors.json for failed files. Owner only.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { downloadBatch } from '~/features/batches/api.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return downloadBatch(request, params.id ?? '')
}
