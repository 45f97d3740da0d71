// GET /api/batches/<id>/: the batch, its counts and every item's status, for its owner only (404 otherwise).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { readBatch } from '~/features/batches/api.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return readBatch(request, params.id ?? '')
}
