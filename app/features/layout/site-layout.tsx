// The frame around every screen: header, main content, footer, toasts. It also keeps two promises of
// spec §2 that hold on every route: scroll to the top on a new page, and a page view per path or query.
import { useLocation, useNavigationType } from '@remix-run/react'
import { useEffect, type ReactNode } from 'react'
import { trackPageView } from '~/features/analytics/track'
import type { Viewer } from '~/features/account/viewer'
import { useRootData, useViewer } from './root-data'
import { Toaster } from '~/ui/toast'
import { SiteFooter } from '~/features/layout/footer'
import { SiteHeader } from '~/features/layout/header'

/** Spec §3: the theme is kept under a product key and is always light. */
export const THEME_STORAGE_KEY = 'facet-studio:theme'

function useLightTheme() {
  useEffect(() => {
    try {
      window.localStorage.setItem(THEME_STORAGE_KEY, 'light')
    } catch {
      // Storage may be disabled; the page is light regardless.
    }
  }, [])
}

const DEFAULT_SITE = { supportEmail: 'support@facet.studio', statusPageUrl: 'https://status.facet.studio' }

function useRouteChangeEffects() {
  const { pathname, search } = useLocation()
  const navigationType = useNavigationType()

  useEffect(() => {
    // Back/forward keeps its saved position (ScrollRestoration); a new page starts at the top.
    if (navigationType !== 'POP') window.scrollTo(0, 0)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pathname])

  useEffect(() => {
    trackPageView()
  }, [pathname, search])
}

/** `footerNote`: the site's one sentence about what is stored, said under every page (site/retention.ts). */
export function SiteLayout({ viewer, footerNote, children }: { viewer: Viewer; footerNote: string; children: ReactNode }) {
  // Read the root data on each render so a revalidation (after a tool run) shows the new balance, and a
  // run's reported balance shows at once (root-data.ts: one balance on the page).
  const rootData = useRootData()
  const current = useViewer() ?? viewer
  const site = rootData?.site ?? DEFAULT_SITE
  useRouteChangeEffects()
  useLightTheme()

  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-[70] focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-semibold focus:shadow-lg"
      >
        Skip to content
      </a>
      <SiteHeader viewer={current} />
      <main id="main" className="flex-1">
        {children}
      </main>
      <SiteFooter supportEmail={site.supportEmail} statusPageUrl={site.statusPageUrl} note={footerNote} />
      <Toaster />
    </div>
  )
}
