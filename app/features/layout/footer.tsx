import { Link } from '@remix-run/react'
import { BrandMark } from '~/features/layout/brand'
import { BATCH_LINK, COMPANY_LINKS, LEGAL_LINKS, TOOL_LINKS } from '~/features/layout/nav'

const linkClass =
  'rounded text-sm text-slate-600 hover:text-slate-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

function LinkGroup({ title, links }: { title: string; links: readonly { to: string; label: string }[] }) {
  return (
    <div>
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      <ul className="mt-3 space-y-2">
        {links.map((link) => (
          <li key={link.to}>
            <Link to={link.to} className={linkClass}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  )
}

export function SiteFooter({ supportEmail, statusPageUrl, note }: { supportEmail: string; statusPageUrl: string; note: string }) {
  return (
    <footer className="border-t border-slate-200 bg-slate-50" data-testid="site-footer">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-[1.4fr_1fr_1fr_1fr]">
        <div>
          <p className="flex items-center gap-2 font-semibold text-slate-900">
            <BrandMark className="h-6 w-6" />
            Facet Studio
          </p>
          <p className="mt-3 max-w-xs text-sm text-slate-600">
            Self-hostable AI image tools for creative teams: cut-outs, restoration, enhancement, anonymisation and
            vector export.
          </p>
          <p className="mt-4 text-sm text-slate-600">
            Support:{' '}
            <a href={`mailto:${supportEmail}`} className={`${linkClass} font-medium text-indigo-700`}>
              {supportEmail}
            </a>
          </p>
          <p className="mt-2 text-sm">
            <a href={statusPageUrl} className={linkClass} rel="noopener noreferrer" target="_blank">
              System status
              <span className="sr-only"> (opens in a new tab)</span>
            </a>
          </p>
        </div>
        <LinkGroup title="Tools" links={[...TOOL_LINKS, BATCH_LINK]} />
        <LinkGroup title="Company" links={COMPANY_LINKS} />
        <LinkGroup title="Legal" links={LEGAL_LINKS} />
      </div>
      <div className="border-t border-slate-200">
        <p className="mx-auto max-w-6xl px-4 py-5 text-xs text-slate-500 sm:px-6">
          © {new Date().getFullYear()} Facet Studio. {note}
        </p>
      </div>
    </footer>
  )
}
