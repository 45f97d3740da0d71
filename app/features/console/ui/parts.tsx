// The console's shared pieces: a table that scrolls on its own on a phone (a labelled, focusable
// region, so keyboard users can scroll it too), the previous/next links of a paged list (they keep
// the page's other query parameters), a UTC time, and the notice a form left. Client-safe.
import { Link, useLocation } from '@remix-run/react'
import type { ReactNode } from 'react'
import { FormMessage } from '~/ui/field'

export function ConsoleTable({ label, head, children, empty }: { label: string; head: string[]; children: ReactNode; empty: boolean }) {
  if (empty) return <p className="mt-3 text-sm text-slate-600">Nothing here.</p>
  return (
    <div role="region" aria-label={label} tabIndex={0} className="mt-3 overflow-x-auto rounded-xl border border-slate-200 focus-visible:outline-2 focus-visible:outline-indigo-600">
      <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
        <thead className="bg-slate-50 text-slate-700">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="whitespace-nowrap px-3 py-2 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 text-slate-800">{children}</tbody>
      </table>
    </div>
  )
}

export const cellClass = 'px-3 py-2 align-top'

export function Pager({ label, param = 'page', page, hasMore }: { label: string; param?: string; page: number; hasMore: boolean }) {
  const { pathname, search } = useLocation()
  if (page <= 1 && !hasMore) return null
  const to = (n: number) => {
    const params = new URLSearchParams(search)
    params.set(param, String(n))
    return `${pathname}?${params}`
  }
  return (
    <nav aria-label={label} className="mt-3 flex items-center gap-4 text-sm">
      {page > 1 ? (
        <Link to={to(page - 1)} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
          Previous page
        </Link>
      ) : null}
      <span className="text-slate-600">Page {page}</span>
      {hasMore ? (
        <Link to={to(page + 1)} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
          Next page
        </Link>
      ) : null}
    </nav>
  )
}

/** A time as the server and the logs write it: UTC, to the minute. */
export function UtcTime({ at }: { at: Date | string | null }) {
  if (!at) return <>—</>
  const iso = new Date(at).toISOString()
  return <time dateTime={iso}>{iso.slice(0, 16).replace('T', ' ')} UTC</time>
}

export function ConsoleNotice({ text }: { text: string | null }) {
  if (!text) return null
  return (
    <div className="mt-4" data-testid="console-notice">
      <FormMessage tone="success">{text}</FormMessage>
    </div>
  )
}

export function SectionHeading({ id, children }: { id: string; children: ReactNode }) {
  return (
    <h2 id={id} className="mt-10 text-xl font-semibold text-slate-900">
      {children}
    </h2>
  )
}

export function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-xl border border-slate-200 p-3">
      <dt className="text-xs font-semibold uppercase tracking-wide text-slate-600">{label}</dt>
      <dd className="mt-1 text-lg font-semibold text-slate-900 [overflow-wrap:anywhere]">{value}</dd>
    </div>
  )
}
