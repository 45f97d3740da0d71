// The webhook endpoints' and the dashboard section's one entry point: endpoints belong to the
// caller's credit account (a session or a key may manage them), views in the API's shape.
import { ensureUserAccount } from '~/features/credits/ledger.server'
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

export async function createWebhookFor(user: SessionUser, input: z.output<typeof createWebhookSchema>) {
  return createEndpoint(await ensureUserAccount(user.id), input)
}

export async function listWebhooksFor(user: SessionUser) {
  return (await listEndpoints(await ensureUserAccount(user.id))).map(publicEndpoint)
}

export async function deleteWebhookFor(user: SessionUser, endpointId: string): Promise<boolean> {
  return deleteEndpoint(await ensureUserAccount(user.id), endpointId)
}

export async function redeliverFor(user: SessionUser, deliveryId: string): Promise<boolean> {
  return (await redeliver(await ensureUserAccount(user.id), deliveryId)).ok
}
