// What the root loader (app/root.tsx) hands every page: who is looking, the site's contacts, and the
// allowances the tool workspace mentions. Declared here, below root and the screens that read it, so
// neither imports root (root's loader is checked against it with `satisfies`).
//
// The balance has one source on the page (issue 35): the root data's viewer. A run in the browser learns
// its new balance (X-Credits-Remaining) before the root data is read again; it reports it here, and every
// reader of useViewer (the header, the mobile menu, the tool's card) shows it in the same render. The
// report holds only while the root data it was made over is current: the next read of the root data wins.
import { useRouteLoaderData } from '@remix-run/react'
import { useCallback, useMemo, useRef, useSyncExternalStore } from 'react'
import type { Viewer, ViewerCredits } from '~/features/account/viewer'

export interface RootLoaderData {
  viewer: Viewer
  site: { supportEmail: string; statusPageUrl: string }
  allowances: { guestDaily: number; userFloor: number; signupBonus: number }
}

export function useRootData(): RootLoaderData | undefined {
  return useRouteLoaderData('root') as RootLoaderData | undefined
}

/** The last balance a run reported, and the root data's credits it replaces. */
type ReportedBalance = { balance: number; over: ViewerCredits }
let reported: ReportedBalance | null = null
const listeners = new Set<() => void>()

function subscribe(listener: () => void) {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

/** The root data's viewer, with the balance a run reported since the root data was read. */
export function useViewer(): Viewer | undefined {
  const viewer = useRootData()?.viewer
  const latest = useSyncExternalStore(subscribe, () => reported, () => null)
  return useMemo(() => {
    if (!viewer?.credits || !latest || latest.over !== viewer.credits) return viewer
    return { ...viewer, credits: { ...viewer.credits, balance: latest.balance } }
  }, [viewer, latest])
}

/** For a run: tells every reader of useViewer the balance an answer reported (X-Credits-Remaining). */
export function useBalanceReport(): (balance: number) => void {
  const credits = useRootData()?.viewer.credits ?? null
  const current = useRef(credits)
  current.current = credits
  return useCallback((balance: number) => {
    if (!current.current) return
    reported = { balance, over: current.current }
    for (const listener of listeners) listener()
  }, [])
}
