// GET /api/teams/<id>/activity/?limit= → {results: [{id, at, email, tool, credits, description}]},
// newest first: every ledger row of the team for owners and admins, a member's own runs for them.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { activityJson, answerTeamCall } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { teamActivity } from '~/features/teams/teams.server'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const caller = await requireTeamApiUser(request)
  const raw = new URL(request.url).searchParams.get('limit')
  const limit = raw === null || raw === '' ? 50 : Number(raw)
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) return errorResponse(400, 'limit must be a whole number from 1 to 200.')
  return answerTeamCall(async () => {
    const entries = await teamActivity(params.id ?? '', caller.user.id, { limit })
    return Response.json({ results: entries.map(activityJson) }, { headers: NO_STORE })
  })
}

export function action() {
  return methodNotAllowed('GET')
}
