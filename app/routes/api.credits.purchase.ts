// POST /api/credits/purchase/ {package_id}: guests 401, an unknown package 400, and otherwise 503:
// purchasing is paused by configuration, and no payment provider exists to take money anyway.
import type { ActionFunctionArgs } from '@remix-run/node'
import { BadRequest, readBody } from '~/http/body.server'
import { errorResponse } from '~/http/errors.server'
import { INVALID_SESSION } from '~/features/auth/messages'
import { getAuthentication } from '~/features/account/authentication.server'
import { purchaseAttempt } from '~/features/credits/purchase.server'

export async function loader() {
  return errorResponse(405, 'Use POST to purchase credits.', {}, { Allow: 'POST' })
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return errorResponse(405, 'Use POST to purchase credits.', {}, { Allow: 'POST' })
  const auth = await getAuthentication(request)
  if (auth.kind === 'invalid') return errorResponse(401, INVALID_SESSION, {}, { 'WWW-Authenticate': 'Token' })
  if (auth.kind === 'anonymous') {
    return errorResponse(401, 'Sign in to purchase credits.', {}, { 'WWW-Authenticate': 'Token' })
  }
  let body: Record<string, unknown>
  try {
    body = await readBody(request)
  } catch (error) {
    if (error instanceof BadRequest) return errorResponse(400, error.message)
    throw error
  }
  const outcome = await purchaseAttempt(body)
  return errorResponse(outcome.status, outcome.message)
}
