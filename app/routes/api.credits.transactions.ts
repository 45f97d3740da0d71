// GET /api/credits/transactions/ → {results} newest first, for a signed-in user (token or session).
// ?limit= (1-100, default 50).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse } from '~/http/errors.server'
import { INVALID_SESSION, NOT_AUTHENTICATED } from '~/features/auth/messages'
import { userTransactions } from '~/features/account/balance.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const outcome = await userTransactions(request, new URL(request.url).searchParams.get('limit'))
  switch (outcome.kind) {
    case 'anonymous':
      return errorResponse(401, NOT_AUTHENTICATED, {}, { 'WWW-Authenticate': 'Token' })
    case 'invalid-token':
      return errorResponse(401, INVALID_SESSION, {}, { 'WWW-Authenticate': 'Token' })
    case 'bad-limit':
      return errorResponse(400, 'limit must be a whole number from 1 to 100.')
    case 'transactions':
      return Response.json({ results: outcome.results }, { headers: { 'Cache-Control': 'private, max-age=30' } })
  }
}
