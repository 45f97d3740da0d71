// GET /api/credits/balance/ → the Credits object of spec §3: a visitor's {source, balance}, or a
// user's {source, balance, lifetime_spent, latest_transaction}. A visitor without a cookie gets one
// (and its account) here. 401 when a token or session cookie names no live session.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse } from '~/http/errors.server'
import { INVALID_SESSION } from '~/features/auth/messages'
import { creditBalance } from '~/features/account/balance.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const outcome = await creditBalance(request)
  switch (outcome.kind) {
    case 'invalid-token':
      return errorResponse(401, INVALID_SESSION, {}, { 'WWW-Authenticate': 'Token' })
    case 'team-refused':
      return errorResponse(outcome.status, outcome.message)
    case 'balance': {
      const headers = new Headers({ 'Cache-Control': 'private, no-store' })
      if (outcome.setCookie) headers.append('Set-Cookie', outcome.setCookie)
      return Response.json(outcome.credits, { headers })
    }
  }
}
