// What a webhook endpoint needs. Client-safe: the API and the dashboard form share it (zod/mini:
// decision 148).
import { z } from 'zod/mini'

import { WEBHOOK_EVENTS, WEBHOOK_URL_MAX } from './events'

export const createWebhookSchema = z.object({
  url: z
    .string({ error: 'Give the endpoint URL.' })
    .check(
      z.trim(),
      z.minLength(1, 'Give the endpoint URL.'),
      z.maxLength(WEBHOOK_URL_MAX, `A webhook URL has at most ${WEBHOOK_URL_MAX} characters.`),
    ),
  events: z.pipe(
    z.pipe(
      z.transform((v: unknown) => (typeof v === 'string' ? [v] : v)),
      z
        .array(z.enum(WEBHOOK_EVENTS, { error: `Events are ${WEBHOOK_EVENTS.join(', ')}.` }), { error: 'events must be a list.' })
        .check(z.refine((list) => list.length > 0, 'Choose at least one event.')),
    ),
    z.transform((list) => [...new Set(list)]),
  ),
})
