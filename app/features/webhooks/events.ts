// The webhook events and limits, apart from the schema: pages that only list them (the /api docs,
// the developers section) then load no validation code.
export const WEBHOOK_EVENTS = ['job.succeeded', 'job.failed', 'batch.completed'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]
export const WEBHOOK_URL_MAX = 2000
/** Endpoints one account may register. */
export const MAX_WEBHOOK_ENDPOINTS = 10
