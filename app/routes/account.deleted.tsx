// /account/deleted: where a deletion from the dashboard lands (decision 171). Public: it says nothing
// about anyone, and the browser that arrives here is signed out already.
import type { MetaFunction } from '@remix-run/node'
import { Link } from '@remix-run/react'
import { ACCOUNT_DELETED, DELETION_KEEPS } from '~/features/rights/messages'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'Account deleted · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

export default function AccountDeletedPage() {
  return (
    <div className="mx-auto w-full max-w-xl px-4 py-10 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{ACCOUNT_DELETED}</h1>
        <p className="mt-2 text-sm text-slate-600">You are signed out, and a mail confirming the deletion is on its way to your old address.</p>
        <p className="mt-2 text-sm text-slate-600">{DELETION_KEEPS}</p>
        <Link to="/" className={buttonClass('secondary', 'mt-6')}>
          Back to Facet Studio
        </Link>
      </div>
    </div>
  )
}
