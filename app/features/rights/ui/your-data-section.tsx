// The dashboard's "Your data" section (decision 171): download everything as a zip, or delete the
// account. The download is a plain form, not Remix's: the browser itself saves the answer, with
// JavaScript on or off.
import { Link } from '@remix-run/react'
import { buttonClass } from '~/ui/button'

export function YourDataSection({ notice }: { notice: string | null }) {
  return (
    <section id="your-data" aria-labelledby="your-data-heading" className="mt-10 scroll-mt-24">
      <h2 id="your-data-heading" className="mb-3 text-lg font-semibold text-slate-900">
        Your data
      </h2>
      <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <p className="text-sm text-slate-600">
          Download everything Facet Studio keeps about your account: a zip with your account, credit ledger, runs, batches, corrections, teams, invites,
          API keys (never the keys themselves) and webhooks as JSON, and the result files still kept.
        </p>
        {notice ? (
          <p role="status" className="mt-3 rounded-xl border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
            {notice}
          </p>
        ) : null}
        <div className="mt-4 flex flex-wrap items-center gap-3">
          <form method="post" action="/account/export">
            <button type="submit" className={buttonClass('secondary')}>
              Download my data
            </button>
          </form>
          <Link to="/account/delete" className="text-sm font-semibold text-red-700 underline underline-offset-2 hover:text-red-800">
            Delete my account
          </Link>
        </div>
      </div>
    </section>
  )
}
