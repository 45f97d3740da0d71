// POST /api/batches/: many files through one tool, answered at once (202 + Location); see batches/api.server.ts.
import type { ActionFunctionArgs } from '@remix-run/node'
import { submitBatch } from '~/features/batches/api.server'
import { methodNotAllowed } from '~/features/tools/errors.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed()
  return submitBatch(request)
}

export const loader = () => methodNotAllowed()
