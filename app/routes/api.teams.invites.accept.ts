// POST /api/teams/invites/accept/ {token} → 200 {team_id}, signed in as the invited address.
// 404 unknown token, 410 expired/used/withdrawn, 403 another address, 409 no seat left.
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { answerTeamCall } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { acceptInviteSchema } from '~/features/teams/schemas'
import { acceptInvite } from '~/features/teams/teams.server'

export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const caller = await requireTeamApiUser(request)
  const parsed = await parseBody(request, acceptInviteSchema)
  if ('response' in parsed) return parsed.response
  return answerTeamCall(async () => {
    const { teamId } = await acceptInvite(caller.user.id, parsed.data.token)
    return Response.json({ team_id: teamId }, { headers: NO_STORE })
  })
}
