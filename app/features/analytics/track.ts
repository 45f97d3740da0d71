// Client-side analytics: fire-and-forget events to POST /api/analytics/events/. Client-safe.
// Analytics must never break a page, so every failure is swallowed.

export const ANALYTICS_ENDPOINT = '/api/analytics/events/'
const SESSION_KEY = 'facet-studio:analytics-session'

function analyticsSessionId(): string | null {
  try {
    let id = window.sessionStorage.getItem(SESSION_KEY)
    if (!id) {
      id =
        typeof crypto !== 'undefined' && 'randomUUID' in crypto
          ? crypto.randomUUID()
          : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`
      window.sessionStorage.setItem(SESSION_KEY, id)
    }
    return id
  } catch {
    // Storage can be disabled (private mode, strict settings): events are still useful without it.
    return null
  }
}

export function trackEvent(eventName: string, metadata?: Record<string, unknown>): void {
  if (typeof window === 'undefined') return
  try {
    const body = JSON.stringify({
      event_name: eventName,
      session_id: analyticsSessionId(),
      path: window.location.pathname + window.location.search,
      referrer: document.referrer || null,
      metadata: metadata ?? {},
    })
    // sendBeacon survives page unloads; it returns false when the browser refuses to queue it.
    const queued =
      typeof navigator.sendBeacon === 'function' &&
      navigator.sendBeacon(ANALYTICS_ENDPOINT, new Blob([body], { type: 'application/json' }))
    if (!queued) {
      void fetch(ANALYTICS_ENDPOINT, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        keepalive: true,
        credentials: 'same-origin',
      }).catch(() => {})
    }
  } catch {
    // ignored on purpose
  }
}

export function trackPageView(): void {
  trackEvent('page_view')
}
