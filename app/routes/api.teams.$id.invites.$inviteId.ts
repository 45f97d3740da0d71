// DELETE /api/teams/<id>/invites/<invite_id>/ → 204: the invite's link stops working and its seat is free.
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { answerTeamCall } from '~/features/teams/api.server'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { revokeInvite } from '~/features/teams/teams.server'

export function loader() {
  return methodNotAllowed('DELETE')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed('DELETE')
  const caller = await requireTeamApiUser(request)
  return answerTeamCall(async () => {
    await revokeInvite(caller.user.id, params.id ?? '', params.inviteId ?? '')
    return new Response(null, { status: 204 })
  })
}
