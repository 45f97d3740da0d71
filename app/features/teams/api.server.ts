// The /api/teams endpoints' shared plumbing: who may call them, the JSON shapes, and TeamError as an
// answer. A session (cookie or Token) or a personal API key manages teams; a team key cannot (it is
// the team's, not a person's, so it must not act as its creator on the team).
import { errorResponse } from '~/features/auth/api.server'
import { authenticatedUser, getAuthentication, type SessionUser } from '~/features/auth/session.server'
import { unauthorized } from '~/features/api-keys/gate.server'
import { listTeamApiKeys } from '~/features/api-keys/keys.server'
import { publicKey } from '~/features/api-keys/service.server'
import { managesTeam } from './roles'
import { TeamError, type TeamActivityEntry, type TeamView } from './teams.server'

export const NO_STORE = { 'Cache-Control': 'no-store' }
export const TEAM_KEY_REFUSED = 'A team key cannot manage teams: use a session or a personal key.'

export type TeamApiCaller = { ok: true; user: SessionUser } | { ok: false; response: Response }

export async function requireTeamApiUser(request: Request): Promise<TeamApiCaller> {
  const auth = await getAuthentication(request)
  const user = authenticatedUser(auth)
  if (!user) return { ok: false, response: unauthorized(auth) }
  if (auth.kind === 'key' && auth.apiKey.teamId) return { ok: false, response: errorResponse(403, TEAM_KEY_REFUSED, {}, NO_STORE) }
  return { ok: true, user }
}

/** Runs a domain call; a TeamError becomes its JSON answer, anything else propagates. */
export async function answerTeamCall(call: () => Promise<Response>): Promise<Response> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof TeamError) return errorResponse(error.status, error.message, {}, NO_STORE)
    throw error
  }
}

export async function teamJson(view: TeamView) {
  const manager = managesTeam(view.viewerRole)
  return {
    id: view.id,
    name: view.name,
    balance: view.balance,
    seats: view.seats,
    role: view.viewerRole,
    spent_this_month: view.spentThisMonth,
    members: view.members.map((m) => ({
      user_id: m.userId,
      email: m.email,
      name: m.name,
      role: m.role,
      spent_this_month: m.spentThisMonth,
      cap: m.cap,
    })),
    invites: view.invites.map((i) => ({ id: i.id, email: i.email, role: i.role, expires_at: i.expiresAt.toISOString() })),
    // The team's keys, for the owners and admins who manage them.
    keys: manager ? (await listTeamApiKeys(view.id)).map(publicKey) : [],
  }
}

export function activityJson(entry: TeamActivityEntry) {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    email: entry.email,
    tool: entry.tool,
    credits: entry.credits,
    description: entry.description,
  }
}
