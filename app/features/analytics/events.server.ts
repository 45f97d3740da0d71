// Recording analytics events (spec §7: POST /api/analytics/events/). Beacons arrive as JSON, or
// as text/plain when the browser sends a string, so the body is read as text and parsed here.
import { readBoundedText as readBoundedBody } from '~/utils/bounded-body.server'
import { z } from 'zod'
import { getDb, type DB } from '~/db/db.server'

export const EVENT_NAME_PATTERN = /^[a-z0-9_.:-]{1,64}$/
export const MAX_METADATA_BYTES = 4096
/** Largest body worth reading: every field at its cap, with room for JSON escaping. */
export const MAX_BODY_BYTES = 16 * 1024

const optionalText = (max: number, label: string) =>
  z
    .string({ error: `${label} must be a string.` })
    .max(max, `${label} must be at most ${max} characters.`)
    .nullish()
    .transform((v) => (v ? v : null))

export const analyticsEventSchema = z.object({
  event_name: z
    .string({ error: 'event_name is required.' })
    .regex(EVENT_NAME_PATTERN, 'event_name must be 1 to 64 characters of a-z, 0-9, _ . : or -.'),
  session_id: optionalText(64, 'session_id'),
  path: optionalText(2048, 'path'),
  referrer: optionalText(2048, 'referrer'),
  metadata: z
    .record(z.string(), z.unknown(), { error: 'metadata must be an object.' })
    .nullish()
    .transform((v) => v ?? {})
    .refine((v) => Buffer.byteLength(JSON.stringify(v), 'utf8') <= MAX_METADATA_BYTES, {
      message: `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON.`,
    }),
})

export type AnalyticsEvent = z.output<typeof analyticsEventSchema>

export type ParsedEvent = { ok: true; event: AnalyticsEvent } | { ok: false; error: string }

/** Validates a raw request body; the message names the first problem found. */
export function parseAnalyticsBody(text: string): ParsedEvent {
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) return { ok: false, error: 'Request body is too large.' }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { ok: false, error: 'Request body must be a JSON object.' }
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, error: 'Request body must be a JSON object.' }
  }
  const result = analyticsEventSchema.safeParse(json)
  if (!result.success) return { ok: false, error: result.error.issues[0]?.message ?? 'Invalid event.' }
  return { ok: true, event: result.data }
}

/** Reads at most MAX_BODY_BYTES of the body, so a huge upload is refused without buffering it all. */
export function readBoundedText(request: Request): Promise<string | null> {
  return readBoundedBody(request, MAX_BODY_BYTES)
}

export async function recordEvent(event: AnalyticsEvent, db: DB = getDb()): Promise<void> {
  await db
    .insertInto('analytics_events')
    .values({
      event_name: event.event_name,
      session_id: event.session_id,
      path: event.path,
      referrer: event.referrer,
      metadata: JSON.stringify(event.metadata),
    })
    .execute()
}
