// POST /api/v1.0/removebg: the remove.bg-compatible endpoint (switch by changing the base URL).
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed, removeBgCompatible } from '~/features/removebg/adapter.server'

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed()
  return removeBgCompatible(request)
}

export const loader = () => methodNotAllowed()
