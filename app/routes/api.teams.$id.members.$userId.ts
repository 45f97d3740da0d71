// PATCH /api/teams/<id>/members/<user_id>/ {role?, cap?} → 200 the member; DELETE → 204 (removing
// oneself is leaving). Owners and admins change members; only owners make or change owners; the
// last owner cannot be demoted, removed or leave (409).
import type { ActionFunctionArgs } from '@remix-run/node'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { answerTeamCall, teamJson } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { MEMBER_NOT_FOUND } from '~/features/teams/messages'
import { changeMemberSchema } from '~/features/teams/schemas'
import { changeMember, getTeamView, removeMember } from '~/features/teams/teams.server'

export function loader() {
  return methodNotAllowed('PATCH, DELETE')
}

export async function action({ request, params }: ActionFunctionArgs) {
  const teamId = params.id ?? ''
  const memberId = params.userId ?? ''
  if (request.method !== 'PATCH' && request.method !== 'DELETE') return methodNotAllowed('PATCH, DELETE')
  const caller = await requireTeamApiUser(request)
  if (request.method === 'DELETE') {
    return answerTeamCall(async () => {
      await removeMember(caller.user.id, teamId, memberId)
      return new Response(null, { status: 204 })
    })
  }
  const parsed = await parseBody(request, changeMemberSchema)
  if ('response' in parsed) return parsed.response
  return answerTeamCall(async () => {
    await changeMember(caller.user.id, teamId, memberId, parsed.data)
    const member = (await teamJson(await getTeamView(teamId, caller.user.id))).members.find((m) => m.user_id === memberId)
    return member ? Response.json(member, { headers: NO_STORE }) : errorResponse(404, MEMBER_NOT_FOUND)
  })
}
