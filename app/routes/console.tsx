// /console: the operator console's frame (its own heading and navigation). Only accounts named by
// OPERATOR_EMAILS get past requireOperator; anyone else gets the site's 404. Every child route
// guards its own loader and action too: a layout's loader does not run for a child's action.
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { NavLink, Outlet } from '@remix-run/react'
import { requireOperator } from '~/features/account/guards.server'

export const meta: MetaFunction = () => [{ title: 'Operator console · Facet Studio' }, { name: 'robots', content: 'noindex, nofollow' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  return null
}

const SECTIONS = [
  { to: '/console', label: 'Accounts', end: true },
  { to: '/console/queue', label: 'Queue and webhooks', end: false },
  { to: '/console/audit', label: 'Audit log', end: false },
  { to: '/console/feedback', label: 'Reported results', end: false },
]

export default function ConsoleLayout() {
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-700">Operator console</p>
      <nav aria-label="Console sections" className="mt-3 border-b border-slate-200">
        <ul className="flex flex-wrap gap-x-6 gap-y-2">
          {SECTIONS.map((s) => (
            <li key={s.to}>
              <NavLink
                to={s.to}
                end={s.end}
                className={({ isActive }) =>
                  `-mb-px inline-block border-b-2 pb-2 text-sm font-semibold ${isActive ? 'border-indigo-600 text-indigo-700' : 'border-transparent text-slate-700 hover:text-slate-900'}`
                }
              >
                {s.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet />
    </div>
  )
}
