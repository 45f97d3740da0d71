// The mobile menu (spec §2): a <details> disclosure, so it opens without JavaScript; with it, it
// closes on every route change. At most 640 px tall, scrolling inside.
import { Link, NavLink } from '@remix-run/react'
import type { Viewer } from '~/features/account/viewer'
import { useClosingDetails } from '~/features/layout/disclosure'
import { CreditsButton, LogoutForm, SignInLink } from '~/features/layout/account-controls'
import { BATCH_LINK, dashboardLabel, HISTORY_LINK, PRIMARY_LINKS, TOOL_LINKS } from '~/features/layout/nav'
import { WorkingAsForm } from '~/features/layout/working-as'

export const MOBILE_MENU_MAX_HEIGHT_PX = 640

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'
const itemClass = `block rounded-lg px-3 py-2.5 text-base font-medium text-slate-800 hover:bg-slate-50 ${focusRing}`

export function MobileMenu({ viewer }: { viewer: Viewer }) {
  const ref = useClosingDetails()
  return (
    <details ref={ref} className="group lg:hidden" data-testid="mobile-menu">
      <summary
        className={`flex cursor-pointer list-none items-center gap-2 rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm font-medium text-slate-800 ${focusRing} [&::-webkit-details-marker]:hidden`}
      >
        <svg viewBox="0 0 20 20" className="h-5 w-5 group-open:hidden" aria-hidden="true">
          <path d="M3 5.5h14M3 10h14M3 14.5h14" stroke="currentColor" strokeWidth="1.8" />
        </svg>
        <svg viewBox="0 0 20 20" className="hidden h-5 w-5 group-open:block" aria-hidden="true">
          <path d="M5 5l10 10M15 5 5 15" stroke="currentColor" strokeWidth="1.8" />
        </svg>
        <span className="sr-only sm:not-sr-only">Menu</span>
      </summary>
      <div
        className="absolute inset-x-0 top-16 border-b border-slate-200 bg-white shadow-lg"
        style={{ maxHeight: `min(${MOBILE_MENU_MAX_HEIGHT_PX}px, calc(100dvh - 4rem))`, overflowY: 'auto' }}
        data-testid="mobile-menu-panel"
      >
        <nav aria-label="Mobile" className="mx-auto max-w-6xl px-4 py-3">
          {/* The account row comes first, so 'Sign out' is never below the fold of the panel. */}
          <div className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-3 pb-3">
            <CreditsButton credits={viewer.credits} team={viewer.workingTeam?.name} testId="mobile-credits-button" />
            <Link to={HISTORY_LINK.to} className={`rounded-full border border-slate-200 px-4 py-1.5 text-sm font-medium text-slate-800 ${focusRing}`}>
              {HISTORY_LINK.label}
            </Link>
            {viewer.user ? (
              <>
                <Link
                  to="/dashboard"
                  className={`max-w-full truncate rounded-full bg-slate-900 px-4 py-1.5 text-sm font-semibold text-white ${focusRing}`}
                >
                  {dashboardLabel(viewer.user)}
                </Link>
                <Link to="/teams" className={`rounded-full border border-slate-200 px-4 py-1.5 text-sm font-medium text-slate-800 ${focusRing}`}>
                  Teams
                </Link>
                {viewer.operator ? (
                  <Link to="/console" className={`rounded-full border border-slate-200 px-4 py-1.5 text-sm font-medium text-slate-800 ${focusRing}`}>
                    Console
                  </Link>
                ) : null}
                <LogoutForm
                  className={`rounded-full border border-slate-200 px-4 py-1.5 text-sm font-medium text-slate-800 ${focusRing}`}
                />
              </>
            ) : (
              <SignInLink className={`rounded-full bg-slate-900 px-4 py-1.5 text-sm font-semibold text-white ${focusRing}`} />
            )}
          </div>
          {viewer.user && viewer.teams.length > 0 ? (
            <div className="border-b border-slate-100 px-3 py-3">
              <WorkingAsForm viewer={viewer} idPrefix="mobile" selectClass="flex-1" stacked />
            </div>
          ) : null}
          <ul className="mt-2 grid grid-cols-2 gap-1">
            {PRIMARY_LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.to === '/'} className={itemClass}>
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
          <p className="mt-2 px-3 text-xs font-semibold uppercase tracking-wide text-slate-600">Tools</p>
          <ul className="mt-1 space-y-0.5">
            {/* Batch after the five tools, as in the header's Tools menu and the footer. */}
            {[...TOOL_LINKS, BATCH_LINK].map((tool) => (
              <li key={tool.to} className={tool.to === BATCH_LINK.to ? 'border-t border-slate-100 pt-0.5' : undefined}>
                <Link to={tool.to} className={`block rounded-lg px-3 py-2 hover:bg-slate-50 ${focusRing}`}>
                  <span className="block text-sm font-semibold text-slate-900">{tool.label}</span>
                  <span className="block truncate text-xs text-slate-600">{tool.description}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </details>
  )
}
