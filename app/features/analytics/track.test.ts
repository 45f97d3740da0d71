import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ANALYTICS_ENDPOINT, trackEvent, trackPageView } from './track'

function installBrowser({ beacon }: { beacon: boolean | 'missing' }) {
  const store = new Map<string, string>()
  const sendBeacon = vi.fn((_url: string, _body: Blob) => beacon === true)
  const fetchMock = vi.fn(async () => new Response(null, { status: 204 }))
  vi.stubGlobal('window', {
    location: { pathname: '/tools/face-blurrer', search: '?from=home' },
    sessionStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) },
  })
  vi.stubGlobal('document', { referrer: 'https://search.example/' })
  vi.stubGlobal('navigator', beacon === 'missing' ? {} : { sendBeacon })
  vi.stubGlobal('fetch', fetchMock)
  return { sendBeacon, fetchMock, store }
}

describe('trackEvent', () => {
  beforeEach(() => vi.unstubAllGlobals())
  afterEach(() => vi.unstubAllGlobals())

  it('sends a JSON beacon with the path, referrer and a stable session id', async () => {
    const { sendBeacon, fetchMock } = installBrowser({ beacon: true })
    trackEvent('face_blur_requested', { blur: 32 })
    trackPageView()
    expect(fetchMock).not.toHaveBeenCalled()
    expect(sendBeacon).toHaveBeenCalledTimes(2)
    const [url, blob] = sendBeacon.mock.calls[0]!
    expect(url).toBe(ANALYTICS_ENDPOINT)
    expect(blob.type).toBe('application/json')
    const first = JSON.parse(await blob.text())
    expect(first).toMatchObject({
      event_name: 'face_blur_requested',
      path: '/tools/face-blurrer?from=home',
      referrer: 'https://search.example/',
      metadata: { blur: 32 },
    })
    const second = JSON.parse(await sendBeacon.mock.calls[1]![1].text())
    expect(second.event_name).toBe('page_view')
    expect(first.session_id).toEqual(expect.any(String))
    expect(second.session_id).toBe(first.session_id)
  })

  it('falls back to a keepalive fetch when the beacon is refused or missing', () => {
    for (const beacon of [false, 'missing'] as const) {
      const { fetchMock } = installBrowser({ beacon })
      trackEvent('page_view')
      expect(fetchMock).toHaveBeenCalledTimes(1)
      const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit]
      expect(url).toBe(ANALYTICS_ENDPOINT)
      expect(init).toMatchObject({ method: 'POST', keepalive: true })
      vi.unstubAllGlobals()
    }
  })

  it('never throws, even when everything fails', () => {
    installBrowser({ beacon: false })
    vi.stubGlobal('fetch', () => Promise.reject(new Error('offline')))
    vi.stubGlobal('navigator', {
      sendBeacon: () => {
        throw new Error('blocked')
      },
    })
    expect(() => trackEvent('page_view')).not.toThrow()
  })

  it('does nothing on the server', () => {
    expect(() => trackEvent('page_view')).not.toThrow()
  })
})
