// The sticky site header (spec §2): transparent at the top, solid once the page is scrolled 12 px.
import { Link, NavLink } from '@remix-run/react'
import { useEffect, useState } from 'react'
import type { Viewer } from '~/features/account/viewer'
import { BrandLink } from '~/features/layout/brand'
import { useClosingDetails } from '~/features/layout/disclosure'
import { CreditsButton, LogoutForm, SignInLink } from '~/features/layout/account-controls'
import { MobileMenu } from '~/features/layout/mobile-menu'
import { WorkingAsMenu } from '~/features/layout/working-as'
import { BATCH_LINK, dashboardLabel, HISTORY_LINK, PRIMARY_LINKS, TOOL_LINKS } from '~/features/layout/nav'

export const SOLID_AFTER_PX = 12

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'
const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium transition-colors ${focusRing} ${
    isActive ? 'text-indigo-700' : 'text-slate-700 hover:text-slate-950'
  }`

/** Solid once scrolled; without JavaScript the header simply stays solid. */
function useSolidHeader(): boolean {
  const [solid, setSolid] = useState(true)
  useEffect(() => {
    const update = () => setSolid(window.scrollY > SOLID_AFTER_PX)
    update()
    window.addEventListener('scroll', update, { passive: true })
    return () => window.removeEventListener('scroll', update)
  }, [])
  return solid
}

function ToolsDropdown() {
  const ref = useClosingDetails()
  return (
    <details ref={ref} className="group relative">
      <summary
        className={`flex cursor-pointer list-none items-center gap-1 rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:text-slate-950 ${focusRing} [&::-webkit-details-marker]:hidden`}
      >
        Tools
        <svg viewBox="0 0 20 20" className="h-4 w-4 transition-transform group-open:rotate-180" aria-hidden="true">
          <path d="M5 7.5 10 12.5 15 7.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
        </svg>
      </summary>
      <div className="absolute left-0 top-full z-50 mt-2 w-80 rounded-2xl border border-slate-200 bg-white p-2 shadow-xl">
        <ul>
          {[...TOOL_LINKS, BATCH_LINK].map((tool) => (
            <li key={tool.to} className={tool.to === BATCH_LINK.to ? 'mt-1 border-t border-slate-200 pt-1' : undefined}>
              <Link to={tool.to} className={`block rounded-xl px-3 py-2.5 hover:bg-slate-50 ${focusRing}`}>
                <span className="block text-sm font-semibold text-slate-900">{tool.label}</span>
                <span className="mt-0.5 block text-xs text-slate-600">{tool.description}</span>
              </Link>
            </li>
          ))}
        </ul>
      </div>
    </details>
  )
}

export function SiteHeader({ viewer }: { viewer: Viewer }) {
  const solid = useSolidHeader()
  return (
    <header
      data-solid={solid ? 'true' : 'false'}
      data-testid="site-header"
      className={`sticky top-0 z-50 border-b transition-[background-color,border-color,box-shadow] duration-200 ${
        solid
          ? 'border-slate-200 bg-white/95 shadow-sm backdrop-blur supports-[backdrop-filter]:bg-white/85'
          : 'border-transparent bg-transparent'
      }`}
    >
      <div className="mx-auto flex h-16 max-w-6xl items-center gap-3 px-4 sm:px-6">
        <BrandLink />
        <nav aria-label="Main" className="ml-6 hidden items-center gap-1 lg:flex">
          <NavLink to="/" end className={navLinkClass}>
            Home
          </NavLink>
          <ToolsDropdown />
          {PRIMARY_LINKS.filter((l) => l.to !== '/').map((link) => (
            <NavLink key={link.to} to={link.to} className={navLinkClass}>
              {link.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          {/* A member of a team: the pill names the balance spent and opens "Working as", at every width. */}
          {viewer.user && viewer.teams.length > 0 ? <WorkingAsMenu viewer={viewer} /> : <CreditsButton credits={viewer.credits} />}
          <div className="hidden items-center gap-2 lg:flex">
            <NavLink to={HISTORY_LINK.to} className={navLinkClass}>
              {HISTORY_LINK.label}
            </NavLink>
            {viewer.user ? (
              <>
                {viewer.operator ? (
                  <Link to="/console" className={`rounded-full px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 ${focusRing}`}>
                    Console
                  </Link>
                ) : null}
                <Link
                  to="/dashboard"
                  data-testid="dashboard-button"
                  className={`max-w-48 truncate rounded-full bg-slate-900 px-4 py-1.5 text-sm font-semibold text-white hover:bg-slate-800 ${focusRing}`}
                >
                  {dashboardLabel(viewer.user)}
                </Link>
                <LogoutForm
                  className={`rounded-full px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 ${focusRing}`}
                />
              </>
            ) : (
              <SignInLink className={`rounded-full bg-slate-900 px-4 py-1.5 text-sm font-semibold text-white hover:bg-slate-800 ${focusRing}`} />
            )}
          </div>
          <MobileMenu viewer={viewer} />
        </div>
      </div>
    </header>
  )
}
