// The webhook endpoints' and the dashboard section's one entry point: endpoints belong to a credit
// account (a session or a key may manage them), views in the API's shape. A team's endpoints hear
// every run paid by the team (whichever member or team key sent it); its owners and admins manage
// them with `X-Team`, and a team key manages its team's.
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { TEAM_HEADER, TEAM_KEY_OTHER_TEAM_MESSAGE } from '~/features/credits/caller.server'
import { errorResponse } from '~/features/auth/api.server'
import { requireApiUser } from '~/features/api-keys/service.server'
import { teamAccount } from '~/features/teams/membership.server'
import { requireTeamManager, TeamError } from '~/features/teams/teams.server'
import { TEAM_NOT_FOUND } from '~/features/teams/messages'
import type { SessionUser } from '~/features/auth/session.server'
import { createEndpoint, deleteEndpoint, listEndpoints, redeliver, type EndpointView } from './endpoints.server'
import type { createWebhookSchema } from './schemas'
import type { z } from 'zod'

export const WEBHOOK_NOT_FOUND = 'No webhook endpoint with this id.'
export const DELIVERY_NOT_FOUND = 'No webhook delivery with this id.'

export function publicEndpoint(endpoint: EndpointView) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    created_at: endpoint.created_at.toISOString(),
    deliveries: endpoint.deliveries.map((d) => ({
      id: d.id,
      event_type: d.event_type,
      status: d.status,
      attempts: d.attempts,
      last_status_code: d.last_status_code,
      last_error: d.last_error,
      next_attempt_at: d.next_attempt_at ? d.next_attempt_at.toISOString() : null,
      created_at: d.created_at.toISOString(),
    })),
  }
}

/** The account whose endpoints a request manages, or the answer that refuses it. */
export type WebhookOwner = { ok: true; accountId: string } | { ok: false; response: Response }

/** A signed-in user's own endpoints (the dashboard's Developers section). */
export async function personalWebhookOwner(user: SessionUser): Promise<string> {
  return ensureUserAccount(user.id)
}

/**
 * Whose endpoints an /api request manages: a team key's team; the team named in `X-Team` when the
 * caller is one of its owners or admins (403 to other members, 404 to anyone else); else the user's.
 */
export async function requireWebhookOwner(request: Request): Promise<WebhookOwner> {
  const caller = await requireApiUser(request)
  if (!caller.ok) return caller
  const named = request.headers.get(TEAM_HEADER)?.trim() || null
  const keyTeam = caller.auth.kind === 'key' ? caller.auth.apiKey.teamId : null
  if (keyTeam && named && named !== keyTeam) return { ok: false, response: errorResponse(403, TEAM_KEY_OTHER_TEAM_MESSAGE) }
  const teamId = keyTeam ?? named
  if (!teamId) return { ok: true, accountId: await personalWebhookOwner(caller.user) }
  if (!keyTeam) {
    try {
      await requireTeamManager(caller.user.id, teamId)
    } catch (error) {
      if (error instanceof TeamError) return { ok: false, response: errorResponse(error.status, error.message) }
      throw error
    }
  }
  const team = await teamAccount(teamId)
  if (!team) return { ok: false, response: errorResponse(404, TEAM_NOT_FOUND) }
  return { ok: true, accountId: team.accountId }
}

export async function createWebhookFor(accountId: string, input: z.output<typeof createWebhookSchema>) {
  return createEndpoint(accountId, input)
}

export async function listWebhooksFor(accountId: string) {
  return (await listEndpoints(accountId)).map(publicEndpoint)
}

export async function deleteWebhookFor(accountId: string, endpointId: string): Promise<boolean> {
  return deleteEndpoint(accountId, endpointId)
}

export async function redeliverFor(accountId: string, deliveryId: string): Promise<boolean> {
  return (await redeliver(accountId, deliveryId)).ok
}
