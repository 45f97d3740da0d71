// What a webhook endpoint needs. Client-safe: the API and the dashboard form share it.
import { z } from 'zod'

export const WEBHOOK_EVENTS = ['job.succeeded', 'job.failed', 'batch.completed'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]
export const WEBHOOK_URL_MAX = 2000
/** Endpoints one account may register. */
export const MAX_WEBHOOK_ENDPOINTS = 10

export const createWebhookSchema = z.object({
  url: z
    .string({ error: 'Give the endpoint URL.' })
    .trim()
    .min(1, 'Give the endpoint URL.')
    .max(WEBHOOK_URL_MAX, `A webhook URL has at most ${WEBHOOK_URL_MAX} characters.`),
  events: z
    .preprocess(
      (v) => (typeof v === 'string' ? [v] : v),
      z.array(z.enum(WEBHOOK_EVENTS, { error: `Events are ${WEBHOOK_EVENTS.join(', ')}.` }), { error: 'events must be a list.' }),
    )
    .refine((list) => list.length > 0, 'Choose at least one event.')
    .transform((list) => [...new Set(list)]),
})
