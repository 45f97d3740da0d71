import type { MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { config } from '~/config.server'
import { MISSION, TIMELINE, VALUES, VISION } from '~/features/site/about'
import { creditFacts } from '~/features/site/facts.server'
import { TOOL_LIST } from '~/catalog/tools'
import { buttonClass } from '~/ui/button'
import { PageHero, SectionHeading } from '~/ui/section'

export const meta: MetaFunction = () => [
  { title: 'About | Facet Studio' },
  { name: 'description', content: 'How Facet Studio started, what we believe, and how to work with us.' },
]

export function loader() {
  const facts = creditFacts()
  return { signupBonus: facts.signupBonus, supportEmail: config().SUPPORT_EMAIL }
}

export default function About() {
  const { signupBonus, supportEmail } = useLoaderData<typeof loader>()
  const stats = [
    { value: String(TOOL_LIST.length), label: 'AI tools in one studio' },
    { value: '0', label: 'uploads written to disk' },
    { value: '24 h', label: 'before a kept result is deleted' },
    { value: String(signupBonus), label: 'welcome credits for new accounts' },
  ]
  return (
    <>
      <PageHero eyebrow="About us" title="We build image tools we want to use ourselves">
        Facet Studio is a small team of designers and engineers making AI image editing dependable, private and
        simple to host.
      </PageHero>

      <section aria-labelledby="story" className="mx-auto max-w-4xl px-4 py-14 sm:px-6">
        <SectionHeading id="story" title="Our story" />
        <ol className="relative mt-10 space-y-8 border-l-2 border-indigo-100 pl-8">
          {TIMELINE.map((step) => (
            <li key={step.year} className="relative">
              <span className="absolute -left-[2.6rem] top-0.5 flex h-5 w-5 rounded-full border-4 border-white bg-indigo-600" aria-hidden="true" />
              <p className="text-sm font-bold text-indigo-600">{step.year}</p>
              <h3 className="mt-1 text-lg font-semibold text-slate-900">{step.title}</h3>
              <p className="mt-1 text-slate-600">{step.text}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="bg-slate-50 py-14">
        <div className="mx-auto grid max-w-5xl gap-6 px-4 sm:px-6 md:grid-cols-2">
          <div className="rounded-2xl bg-white p-8 shadow-sm">
            <h2 className="text-2xl font-bold text-slate-900">Our mission</h2>
            <p className="mt-3 leading-relaxed text-slate-600">{MISSION}</p>
          </div>
          <div className="rounded-2xl bg-white p-8 shadow-sm">
            <h2 className="text-2xl font-bold text-slate-900">Our vision</h2>
            <p className="mt-3 leading-relaxed text-slate-600">{VISION}</p>
          </div>
        </div>
      </section>

      <section aria-labelledby="values" className="mx-auto max-w-5xl px-4 py-14 sm:px-6">
        <SectionHeading id="values" title="What we value" />
        <ul className="mt-10 grid gap-5 md:grid-cols-3">
          {VALUES.map((v) => (
            <li key={v.title} className="rounded-2xl border border-slate-200 p-6">
              <h3 className="text-lg font-semibold text-slate-900">{v.title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-slate-600">{v.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-label="Facet Studio in numbers" className="mx-auto max-w-5xl px-4 pb-14 sm:px-6">
        <dl className="grid grid-cols-2 gap-4 rounded-3xl bg-slate-900 p-8 text-white md:grid-cols-4">
          {stats.map((s) => (
            <div key={s.label} className="text-center">
              <dt className="sr-only">{s.label}</dt>
              <dd className="text-3xl font-bold">{s.value}</dd>
              <dd className="mt-1 text-sm text-slate-300" aria-hidden="true">
                {s.label}
              </dd>
            </div>
          ))}
        </dl>
      </section>

      <section className="mx-auto max-w-3xl px-4 pb-20 text-center sm:px-6">
        <h2 className="text-2xl font-bold text-slate-900">Work with us</h2>
        <p className="mt-3 text-slate-600">
          We are always glad to hear from designers and engineers who care about images. Send a note about yourself to{' '}
          <a className="font-medium text-indigo-700 hover:underline" href={`mailto:${supportEmail}?subject=Careers`}>
            {supportEmail}
          </a>{' '}
          with “Careers” in the subject.
        </p>
        <Link to="/contact" className={buttonClass('secondary', 'mt-6')}>
          Contact us
        </Link>
      </section>
    </>
  )
}
