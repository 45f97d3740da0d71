// A batch followed in the browser: GET /api/batches/<id>/ read in the background (no page reload)
// until every file has run. Without JavaScript the page refreshes itself instead (<noscript> meta).
import { useRevalidator } from '@remix-run/react'
import { useEffect, useState } from 'react'
import type { BatchStatusView } from './batch-status'

/** How often the browser reads a running batch. */
export const BATCH_POLL_MS = 500

export function useBatchStatus(initial: BatchStatusView | null): BatchStatusView | null {
  const [batch, setBatch] = useState(initial)
  const revalidator = useRevalidator()
  const id = batch?.id ?? null
  const running = batch?.status === 'running'

  useEffect(() => {
    if (!id || !running) return
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const read = async () => {
      try {
        const response = await fetch(`/api/batches/${encodeURIComponent(id)}/`, {
          credentials: 'same-origin',
          signal: controller.signal,
          headers: { Accept: 'application/json' },
        })
        if (response.status === 404) {
          // No longer this caller's to read (removed from the team that owns it, or switched to
          // another balance in another tab): the page's loader then says so instead of a frozen bar.
          revalidator.revalidate()
          return
        }
        if (response.ok) {
          const next = (await response.json()) as BatchStatusView
          setBatch(next)
          if (next.status !== 'running') {
            // The header's balance now reflects the charges and refunds.
            revalidator.revalidate()
            return
          }
        }
      } catch {
        if (controller.signal.aborted) return
        // A reading that fails (network) is tried again at the next tick.
      }
      timer = setTimeout(read, BATCH_POLL_MS)
    }
    void read()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
    // Only the batch and whether it still runs; revalidate is stable enough for one call.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, running])

  return batch
}
