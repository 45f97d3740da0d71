// POST /api/batches/: many files through one tool, answered at once (202 + Location); see batches/api.server.ts.
import type { ActionFunctionArgs } from '@remix-run/node'
import { submitBatch } from '~/features/batches/api.server'
import { runMethodNotAllowed } from '~/http/errors.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return runMethodNotAllowed()
  return submitBatch(request)
}

export const loader = () => runMethodNotAllowed()
