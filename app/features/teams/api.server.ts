// The /api/teams endpoints' shared plumbing: the JSON shapes, and TeamError as an answer. Who may call
// them is account/guards.server.ts's requireTeamApiUser.
import { errorResponse } from '~/http/errors.server'
import { listTeamApiKeys } from '~/features/api-keys/keys.server'
import { publicKey } from '~/features/api-keys/keys.server'
import { managesTeam } from './roles'
import { TeamError, type TeamActivityEntry, type TeamView } from './teams.server'
import { NO_STORE } from '~/http/headers'

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
