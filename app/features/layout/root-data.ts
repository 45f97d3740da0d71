// What the root loader (app/root.tsx) hands every page: who is looking, the site's contacts, and the
// allowances the tool workspace mentions. Declared here, below root and the screens that read it, so
// neither imports root (root's loader is checked against it with `satisfies`).
import { useRouteLoaderData } from '@remix-run/react'
import type { Viewer } from '~/features/account/viewer'

export interface RootLoaderData {
  viewer: Viewer
  site: { supportEmail: string; statusPageUrl: string }
  allowances: { guestDaily: number; userFloor: number; signupBonus: number }
}

export function useRootData(): RootLoaderData | undefined {
  return useRouteLoaderData('root') as RootLoaderData | undefined
}
