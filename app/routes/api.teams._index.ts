// GET /api/teams/ → {results: [{id, name, role}]}: the caller's teams.
// POST /api/teams/ {name} → 201 {id, name}: a new team with the caller as its owner (0 credits).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { methodNotAllowed } from '~/http/errors.server'
import { parseBody } from '~/http/body.server'
import { answerTeamCall } from '~/features/teams/api.server'
import { NO_STORE } from '~/http/headers'
import { requireTeamApiUser } from '~/features/account/guards.server'
import { createTeamSchema } from '~/features/teams/schemas'
import { createTeam, listTeamsForUser } from '~/features/teams/teams.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const caller = await requireTeamApiUser(request)
  return Response.json({ results: await listTeamsForUser(caller.user.id) }, { headers: NO_STORE })
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('GET, POST')
  const caller = await requireTeamApiUser(request)
  const parsed = await parseBody(request, createTeamSchema)
  if ('response' in parsed) return parsed.response
  return answerTeamCall(async () => Response.json(await createTeam(caller.user.id, parsed.data.name), { status: 201, headers: NO_STORE }))
}
