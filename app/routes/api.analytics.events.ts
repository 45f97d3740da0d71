// POST /api/analytics/events/ (spec §7): 204 when stored, 400 {error} when the event is malformed.
import type { ActionFunctionArgs } from '@remix-run/node'
import { parseAnalyticsBody, readBoundedText, recordEvent } from '~/features/analytics/events.server'
import { clientAddress, consumeRateLimit, tooManyRequests } from '~/features/security/rate-limit.server'

export const ANALYTICS_RATE_LIMIT = { name: 'analytics-events', points: 120, durationSeconds: 60 }

function badRequest(error: string) {
  return Response.json({ error, detail: error }, { status: 400 })
}

export async function loader() {
  return Response.json(
    { error: 'Method not allowed.', detail: 'Method not allowed.' },
    { status: 405, headers: { Allow: 'POST' } },
  )
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') {
    return Response.json({ error: 'Method not allowed.', detail: 'Method not allowed.' }, { status: 405, headers: { Allow: 'POST' } })
  }
  const limit = await consumeRateLimit(ANALYTICS_RATE_LIMIT, clientAddress(request))
  if (!limit.ok) return tooManyRequests(limit, 'Too many analytics events. Please slow down.')

  const text = await readBoundedText(request)
  if (text === null) return badRequest('Request body is too large.')
  const parsed = parseAnalyticsBody(text)
  if (!parsed.ok) return badRequest(parsed.error)

  await recordEvent(parsed.event)
  return new Response(null, { status: 204 })
}
