// Spec §4: while signed in, /credits and /dashboard refresh the balance every 4 s. Revalidating
// re-runs the loaders, so the header and the page read the same fresh numbers. A hidden tab does
// not poll; it catches up as soon as it is shown again.
import { useRevalidator } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { CREDIT_POLL_INTERVAL_MS } from './display'

export function useCreditPolling(enabled: boolean, intervalMs: number = CREDIT_POLL_INTERVAL_MS): void {
  const revalidator = useRevalidator()
  const latest = useRef(revalidator)
  latest.current = revalidator

  useEffect(() => {
    if (!enabled) return
    const refresh = () => {
      if (document.visibilityState === 'hidden' || latest.current.state !== 'idle') return
      latest.current.revalidate()
    }
    const timer = window.setInterval(refresh, intervalMs)
    const onVisible = () => {
      if (document.visibilityState === 'visible') refresh()
    }
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      window.clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [enabled, intervalMs])
}
