// The webhook endpoints' and the dashboard section's one entry point: endpoints belong to a credit
// account (a session or a key may manage them), views in the API's shape. A team's endpoints hear
// every run paid by the team (whichever member or team key sent it); its owners and admins manage
// them with `X-Team`, and a team key manages its team's.
import { ensureUserAccount } from '~/features/credits/ledger.server'
import type { SessionUser } from '~/features/auth/session.server'
import { getDb } from '~/db/db.server'
import { recordAudit } from '~/features/audit/audit.server'
import { createEndpoint, deleteEndpoint, listEndpoints, redeliver, type EndpointHook, type EndpointView } from './endpoints.server'
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

/** A signed-in user's own endpoints (the dashboard's Developers section). */
export async function personalWebhookOwner(user: SessionUser): Promise<string> {
  return ensureUserAccount(user.id)
}

/** Who manages a team's endpoints, for its audit log: the acting person and the team. */
export interface TeamWebhookActor {
  actorUserId: string
  teamId: string
}

/** A team's webhook added or removed is a team-admin action: audited in the same transaction (decision 162). */
function auditTeamWebhook(team: TeamWebhookActor | null | undefined, action: 'team.webhook.create' | 'team.webhook.delete'): EndpointHook | undefined {
  if (!team) return undefined
  return (endpoint, trx) =>
    recordAudit(
      { actor: { userId: team.actorUserId }, action, targetType: 'team', targetId: team.teamId, details: { endpointId: endpoint.id, url: endpoint.url, events: endpoint.events } },
      trx,
    )
}

export async function createWebhookFor(accountId: string, input: z.output<typeof createWebhookSchema>, team?: TeamWebhookActor | null) {
  return createEndpoint(accountId, input, getDb(), auditTeamWebhook(team, 'team.webhook.create'))
}

export async function listWebhooksFor(accountId: string) {
  return (await listEndpoints(accountId)).map(publicEndpoint)
}

export async function deleteWebhookFor(accountId: string, endpointId: string, team?: TeamWebhookActor | null): Promise<boolean> {
  return deleteEndpoint(accountId, endpointId, getDb(), auditTeamWebhook(team, 'team.webhook.delete'))
}

export async function redeliverFor(accountId: string, deliveryId: string): Promise<boolean> {
  return (await redeliver(accountId, deliveryId)).ok
}
