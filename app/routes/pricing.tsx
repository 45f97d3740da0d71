// /pricing (DESIGN.md): packages from the database, each tool's cost, the free allowances, and the
// purchasing-paused notice.
import type { MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { formatPrice } from '~/features/credits/display'
import { listPackages } from '~/features/credits/packages.server'
import { creditFacts } from '~/features/site/facts.server'
import { TOOL_LIST } from '~/catalog/tools'
import { buttonClass } from '~/ui/button'
import { PageHero, ToolIcon } from '~/ui/section'
import { formatCredits } from '~/utils/credits-word'

export const meta: MetaFunction = () => [
  { title: 'Pricing | Facet Studio' },
  { name: 'description', content: 'What each Facet Studio tool costs in credits, the free daily credits, and credit packages.' },
]

export async function loader() {
  return { packages: await listPackages(), facts: creditFacts() }
}


export default function Pricing() {
  const { packages, facts } = useLoaderData<typeof loader>()
  return (
    <>
      <PageHero eyebrow="Pricing" title="Simple credits, refreshed every day">
        Every tool run costs a few credits, charged only when the run delivers. Free credits arrive daily; packages
        will add more.
      </PageHero>

      <div className="mx-auto max-w-5xl space-y-14 px-4 pb-20 sm:px-6">
        {facts.purchasingPaused ? (
          <div role="note" className="rounded-2xl border border-amber-300 bg-amber-50 p-5 text-amber-900" data-testid="purchasing-paused">
            <p className="font-semibold">Purchasing temporarily paused</p>
            <p className="mt-1 text-sm">
              Credit packages cannot be bought right now. Your free daily credits keep working, and if you need more
              for a project, <Link to="/contact" className="font-semibold underline">contact us</Link>.
            </p>
          </div>
        ) : null}

        <section aria-labelledby="free">
          <h2 id="free" className="text-2xl font-bold text-slate-900">Free credits</h2>
          <ul className="mt-6 grid gap-4 md:grid-cols-3">
            <li className="rounded-2xl border border-slate-200 p-6">
              <p className="text-sm font-medium text-slate-600">Visitors</p>
              <p className="mt-1 text-3xl font-bold text-slate-900">{formatCredits(facts.guestDaily)}</p>
              <p className="mt-2 text-sm text-slate-600">every day, without an account.</p>
            </li>
            <li className="rounded-2xl border border-slate-200 p-6">
              <p className="text-sm font-medium text-slate-600">New accounts</p>
              <p className="mt-1 text-3xl font-bold text-slate-900">{formatCredits(facts.signupBonus)}</p>
              <p className="mt-2 text-sm text-slate-600">once, when you verify your email.</p>
            </li>
            <li className="rounded-2xl border border-slate-200 p-6">
              <p className="text-sm font-medium text-slate-600">Daily top-up</p>
              <p className="mt-1 text-3xl font-bold text-slate-900">up to {facts.userFloor}</p>
              <p className="mt-2 text-sm text-slate-600">
                each day, an account balance under {facts.userFloor} is topped up to {facts.userFloor}.
              </p>
            </li>
          </ul>
        </section>

        <section aria-labelledby="costs">
          <h2 id="costs" className="text-2xl font-bold text-slate-900">Cost per run</h2>
          <p className="mt-2 text-slate-600">A failed run, or a face blur or restoration that finds no face, is refunded.</p>
          <div className="mt-6 overflow-x-auto rounded-2xl border border-slate-200">
            <table className="w-full min-w-[20rem] text-left text-sm">
              <thead className="bg-slate-50 text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-3 font-semibold">Tool</th>
                  <th scope="col" className="hidden px-4 py-3 font-semibold sm:table-cell">Files</th>
                  <th scope="col" className="px-4 py-3 text-right font-semibold">Credits per run</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200">
                {TOOL_LIST.map((tool) => (
                  <tr key={tool.slug}>
                    <th scope="row" className="px-4 py-3 font-medium text-slate-900">
                      <Link to={tool.path} className="inline-flex items-center gap-2 hover:text-indigo-700">
                        <ToolIcon slug={tool.slug} className="h-5 w-5 text-indigo-600" />
                        {tool.name}
                      </Link>
                      {tool.signInRequired ? <span className="ml-2 text-xs font-normal text-slate-500">(account needed)</span> : null}
                    </th>
                    <td className="hidden px-4 py-3 text-slate-600 sm:table-cell">
                      {tool.acceptedLabel}, up to {tool.maxMegabytes} MB
                    </td>
                    <td className="px-4 py-3 text-right font-semibold tabular-nums text-slate-900" data-testid={`cost-${tool.slug}`}>
                      {facts.costs[tool.slug]}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>

        <section aria-labelledby="packages">
          <h2 id="packages" className="text-2xl font-bold text-slate-900">Credit packages</h2>
          {packages.length === 0 ? (
            <p className="mt-4 text-slate-600">No credit packages are available right now.</p>
          ) : (
            <ul className="mt-6 grid gap-4 md:grid-cols-3">
              {packages.map((p) => (
                <li
                  key={p.id}
                  className={`flex flex-col rounded-2xl border p-6 ${p.label ? 'border-indigo-300 ring-1 ring-indigo-200' : 'border-slate-200'}`}
                >
                  {p.label ? (
                    <p className="self-start rounded-full bg-indigo-100 px-2.5 py-0.5 text-xs font-semibold text-indigo-800">{p.label}</p>
                  ) : null}
                  <p className="mt-3 text-3xl font-bold text-slate-900">{formatCredits(p.credits)}</p>
                  <p className="mt-1 text-lg text-slate-700">{formatPrice(p.price)}</p>
                  <p className="mt-1 text-sm text-slate-500">
                    {formatPrice((p.price / p.credits) * 100)} per 100 credits
                  </p>
                  {facts.purchasingPaused ? (
                    <button type="button" disabled className={buttonClass('secondary', 'mt-6')}>
                      Purchases paused
                    </button>
                  ) : (
                    <Link to="/credits" className={buttonClass('secondary', 'mt-6')}>
                      Buy on the Credits page
                    </Link>
                  )}
                </li>
              ))}
            </ul>
          )}
          <p className="mt-6 text-sm text-slate-600">
            Need credits for a larger project, or an invoice?{' '}
            <Link to="/contact" className="font-semibold text-indigo-700 hover:underline">
              Contact us
            </Link>
            .
          </p>
        </section>
      </div>
    </>
  )
}
