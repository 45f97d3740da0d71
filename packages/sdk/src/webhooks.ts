// Webhook signature verification, on the same Standard Webhooks library the studio signs with: the
// signature over webhook-id, webhook-timestamp and the raw body, and a timestamp within 5 minutes.
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { components } from './generated/openapi'

export type WebhookEvent = components['schemas']['WebhookEvent']
export { WebhookVerificationError }

type HeaderSource = Headers | Record<string, string | string[] | undefined>

function headerRecord(headers: HeaderSource): Record<string, string> {
  const record: Record<string, string> = {}
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (record[name.toLowerCase()] = value))
    return record
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return record
}

/**
 * The event of a delivery whose signature is the studio's, else a WebhookVerificationError. Pass the
 * raw body exactly as received (a string or the bytes): parsing and re-serialising JSON changes what
 * was signed. `secret` is the endpoint's `whsec_…` secret.
 */
export function verifyWebhook(payload: string | Buffer | Uint8Array, headers: HeaderSource, secret: string): WebhookEvent {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload)
  return new Webhook(secret).verify(body, headerRecord(headers)) as WebhookEvent
}
