// GET /api/teams/<id>/ → {id, name, balance, seats: {used, limit}, role, spent_this_month, members,
// invites, keys}: owners and admins see every member, pending invites and the team's keys; a member
// sees only their own row. 404 to anyone outside the team.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { answerTeamCall, teamJson } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { getTeamView } from '~/features/teams/teams.server'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const caller = await requireTeamApiUser(request)
  return answerTeamCall(async () => Response.json(await teamJson(await getTeamView(params.id ?? '', caller.user.id)), { headers: NO_STORE }))
}

export function action() {
  return methodNotAllowed('GET')
}
