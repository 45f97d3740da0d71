// POST /api/teams/<id>/transfers/ {amount} → 201 {id, team_id, amount, balance, team_balance}: moves
// credits from the caller's own account into the team (any member: owner, admin or member). 402 when
// the amount is more than the balance above the daily floor, 403 with a test key (decision 162), 404
// when not a member, 429 when rate limited. The rule is the domain's (moveCreditsToTeam).
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { answerTeamCall } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { transferApiSchema } from '~/features/teams/transfer'
import { moveCreditsToTeam } from '~/features/teams/transfer.server'

export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const caller = await requireTeamApiUser(request)
  const parsed = await parseBody(request, transferApiSchema)
  if ('response' in parsed) return parsed.response
  return answerTeamCall(async () => {
    const done = await moveCreditsToTeam(caller.user.id, params.id ?? '', parsed.data.amount, { testKey: caller.testKey })
    return Response.json(
      { id: done.id, team_id: done.teamId, amount: done.amount, balance: done.balance, team_balance: done.teamBalance },
      { status: 201, headers: NO_STORE },
    )
  })
}
