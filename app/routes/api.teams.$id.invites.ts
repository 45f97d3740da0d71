// POST /api/teams/<id>/invites/ {email, role} → 201 {id, email, role, expires_at}, and a mail whose
// link carries the single-use invite token. Owners and admins only (only owners invite owners);
// 409 when the seats (members + pending invites) are all taken or the address is a member already.
import type { ActionFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { answerTeamCall } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { inviteSchema } from '~/features/teams/schemas'
import { inviteMember } from '~/features/teams/teams.server'

export function loader() {
  return methodNotAllowed('POST')
}

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const caller = await requireTeamApiUser(request)
  const parsed = await parseBody(request, inviteSchema)
  if ('response' in parsed) return parsed.response
  const { email, role } = parsed.data
  return answerTeamCall(async () => {
    const invite = await inviteMember(caller.user.id, params.id ?? '', { email, role })
    return Response.json({ id: invite.inviteId, email, role, expires_at: invite.expiresAt.toISOString() }, { status: 201, headers: NO_STORE })
  })
}
