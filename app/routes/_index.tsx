// Home (spec §2): hero with the compare slider, features, partners, quality, steps, tools,
// testimonials, FAQ and the final call to action. Figures come from configuration and real runs.
import type { MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { cachedMedianRenderTime, creditFacts } from '~/features/site/facts.server'
import { formatSeconds, RENDER_WINDOW_DAYS } from '~/features/site/render-times'
import { homeFaq } from '~/features/site/faq'
import { STORAGE_SENTENCE, STORAGE_SHORT } from '~/catalog/retention'
import { TESTIMONIALS } from '~/features/site/testimonials'
import { TOOLS } from '~/catalog/tools'
import { QuickStart } from '~/features/tools/ui/quick-start'
import { buttonClass } from '~/ui/button'
import { CompareSlider } from '~/ui/compare-slider'
import { LogoMarquee } from '~/ui/logo-marquee'
import { SectionHeading, ToolIcon } from '~/ui/section'
import { TestimonialCarousel } from '~/features/site/ui/testimonial-carousel'
import { creditsNoun, formatCredits } from '~/utils/credits-word'

export const meta: MetaFunction = () => [
  { title: 'Facet Studio | AI image tools for creative teams' },
  {
    name: 'description',
    content:
      `Remove backgrounds, restore faces, enhance photos, blur faces and convert SVGs. Lossless results at the original resolution. ${STORAGE_SENTENCE}`,
  },
]

export async function loader() {
  return { facts: creditFacts(), renderTimes: await cachedMedianRenderTime() }
}

const FEATURED_TOOLS = [TOOLS['background-remover'], TOOLS['face-blurrer'], TOOLS['image-enhancer']] as const

const STEPS = [
  { title: 'Upload', text: 'Drop a PNG, JPG, WebP, TIFF or SVG, up to 12 to 20 MB depending on the tool.' },
  { title: 'Process', text: 'The model runs on our servers. Renders take seconds, depending on the tool and the image size.' },
  { title: 'Deliver', text: 'Download a lossless PNG at the original resolution, or the format you chose for SVGs.' },
] as const

const FEATURE_ICONS = {
  quality: 'M12 3 21 9l-9 12L3 9Z M3 9h18 M12 3 8 9l4 12 4-12-4-6',
  privacy: 'M12 3 5 6v5c0 4.5 3 8 7 10 4-2 7-5.5 7-10V6Z M9 12l2 2 4-4',
  refresh: 'M20 11a8 8 0 0 0-14.5-4.5L4 8 M4 4v4h4 M4 13a8 8 0 0 0 14.5 4.5L20 16 M20 20v-4h-4',
  tools: 'M4 4h7v7H4Z M13 4h7v7h-7Z M4 13h7v7H4Z M13 13h7v7h-7Z',
} as const

function FeatureCard({ title, text, icon }: { title: string; text: string; icon: keyof typeof FEATURE_ICONS }) {
  return (
    <li className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
      <span className="flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600" aria-hidden="true">
        <svg viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" strokeLinecap="round">
          <path d={FEATURE_ICONS[icon]} />
        </svg>
      </span>
      <h3 className="mt-4 text-lg font-semibold text-slate-900">{title}</h3>
      <p className="mt-2 text-sm leading-relaxed text-slate-600">{text}</p>
    </li>
  )
}

export default function Home() {
  const { facts, renderTimes } = useLoaderData<typeof loader>()
  const faq = homeFaq(facts)
  return (
    <>
      <section className="relative overflow-hidden bg-gradient-to-b from-indigo-50 via-white to-white">
        <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 pb-16 pt-10 sm:px-6 md:grid-cols-2 md:pt-16">
          <div>
            <p className="inline-flex rounded-full bg-indigo-100 px-3 py-1 text-xs font-semibold text-indigo-800">
              {facts.guestDaily} free {creditsNoun(facts.guestDaily)} every day, no card needed
            </p>
            <h1 className="mt-5 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">
              Studio-grade image edits, powered by AI
            </h1>
            <p className="mt-5 text-lg leading-relaxed text-slate-600">
              Remove backgrounds, restore faces, enhance whole photos, anonymise crowds and export vector art. Results
              keep the original resolution. {STORAGE_SENTENCE}
            </p>
            <div className="mt-8">
              <QuickStart cost={facts.costs['background-remover']} />
            </div>
            <div className="mt-6 flex flex-wrap gap-3">
              {/* Guests can use every tool: the main button opens one, not the sign-in form (issue 21). */}
              <Link to={TOOLS['background-remover'].path} className={buttonClass('primary', 'px-6 py-3 text-base')}>
                Get started free
              </Link>
              <a href="#tools" className={buttonClass('secondary', 'px-6 py-3 text-base')}>
                See the tools
              </a>
            </div>
            <p className="mt-4 text-sm text-slate-500">
              {facts.signupBonus} welcome {creditsNoun(facts.signupBonus)} when you verify your email. Access to all 5 tools.
            </p>
          </div>
          <div>
            <CompareSlider
              before={{ src: '/images/hero-before.webp', alt: 'A soft, compressed portrait of an astronaut', label: 'Before' }}
              after={{ src: '/images/hero-after.webp', alt: 'The same portrait, sharp and clean', label: 'After' }}
              width={512}
              height={512}
              loading="eager"
              className="mx-auto max-w-md"
            />
          </div>
        </div>
      </section>

      <section aria-labelledby="features" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <SectionHeading id="features" eyebrow="Why Facet Studio" title="Everything a busy creative team needs" />
        <ul className="mt-10 grid gap-5 sm:grid-cols-2 lg:grid-cols-4">
          <FeatureCard icon="quality" title="Original quality" text="Lossless PNG output at the full resolution of your upload. No recompression, no watermark." />
          <FeatureCard icon="privacy" title="Private by design" text={STORAGE_SENTENCE} />
          <FeatureCard icon="refresh" title="Credits refresh daily" text={`Visitors get ${formatCredits(facts.guestDaily)} a day; account balances under ${facts.userFloor} are topped up to ${facts.userFloor} every day.`} />
          <FeatureCard icon="tools" title="Five tools, one place" text="Background remover, face restorer, image enhancer, face blurrer and SVG converter behind one sign-in." />
        </ul>
      </section>

      <section aria-label="Built on open source" className="border-y border-slate-100 bg-slate-50/60 py-10">
        <p className="mb-6 text-center text-sm font-medium text-slate-500">Built on open models and open-source projects</p>
        <LogoMarquee />
      </section>

      <section aria-labelledby="quality" className="mx-auto grid max-w-6xl items-center gap-10 px-4 py-16 sm:px-6 md:grid-cols-2">
        <div>
          <SectionHeading id="quality" align="left" eyebrow="Original quality preserved" title="Your pixels, untouched where it matters" />
          <ul className="mt-6 space-y-3 text-slate-700">
            {[
              'Results come back at the resolution you uploaded, encoded losslessly as PNG.',
              'Transparency is kept: cut-outs and SVG exports to PNG or WebP stay alpha-clean.',
              'The face blurrer removes EXIF and other metadata before you download.',
              'Single images up to 20 MB, depending on the tool.',
            ].map((line) => (
              <li key={line} className="flex gap-3">
                <span aria-hidden="true" className="mt-1 text-indigo-600">✓</span>
                <span>{line}</span>
              </li>
            ))}
          </ul>
        </div>
        <dl className="grid grid-cols-2 gap-4">
          <div className="rounded-2xl bg-slate-900 p-6 text-white">
            <dt className="text-sm text-slate-300">Output</dt>
            <dd className="mt-1 text-2xl font-bold">Lossless PNG</dd>
          </div>
          <div className="rounded-2xl bg-indigo-600 p-6 text-white">
            <dt className="text-sm text-indigo-100">Uploads kept</dt>
            <dd className="mt-1 text-2xl font-bold">{STORAGE_SHORT.uploads}</dd>
          </div>
          <div className="rounded-2xl border border-slate-200 p-6">
            <dt className="text-sm text-slate-600">Results kept</dt>
            <dd className="mt-1 text-2xl font-bold text-slate-900">{STORAGE_SHORT.results}</dd>
          </div>
          <div className="rounded-2xl border border-slate-200 p-6" data-testid="render-time">
            <dt className="text-sm text-slate-600">
              {renderTimes ? `Median render, last ${RENDER_WINDOW_DAYS} days` : 'Render time'}
            </dt>
            <dd className="mt-1 text-2xl font-bold text-slate-900">
              {renderTimes ? formatSeconds(renderTimes.medianMs) : 'Seconds'}
            </dd>
            <dd className="mt-1 text-xs text-slate-500">
              {renderTimes
                ? `Measured over ${renderTimes.runs.toLocaleString('en-US')} runs`
                : 'Depends on the tool and the image size'}
            </dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="how" className="bg-slate-50 py-16">
        <div className="mx-auto max-w-6xl px-4 sm:px-6">
          <SectionHeading id="how" eyebrow="How it works" title="Upload, process, deliver" />
          <ol className="mt-10 grid gap-5 md:grid-cols-3">
            {STEPS.map((step, i) => (
              <li key={step.title} className="rounded-2xl border border-slate-200 bg-white p-6">
                <span className="flex h-9 w-9 items-center justify-center rounded-full bg-slate-900 text-sm font-bold text-white">
                  {i + 1}
                </span>
                <h3 className="mt-4 text-lg font-semibold text-slate-900">{step.title}</h3>
                <p className="mt-2 text-sm leading-relaxed text-slate-600">{step.text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section id="tools" aria-labelledby="tools-title" className="mx-auto max-w-6xl scroll-mt-20 px-4 py-16 sm:px-6">
        <SectionHeading id="tools-title" eyebrow="Tools" title="Start with a favourite" />
        <ul className="mt-10 grid gap-5 md:grid-cols-3">
          {FEATURED_TOOLS.map((tool) => (
            <li key={tool.slug} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
              <span className="flex h-11 w-11 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
                <ToolIcon slug={tool.slug} />
              </span>
              <h3 className="mt-4 text-lg font-semibold text-slate-900">{tool.name}</h3>
              <p className="mt-2 flex-1 text-sm text-slate-600">{tool.description}</p>
              <p className="mt-4 text-xs font-medium text-slate-500">
                {tool.acceptedLabel}, up to {tool.maxMegabytes} MB · {formatCredits(facts.costs[tool.slug])} a run
              </p>
              <Link to={tool.path} className={buttonClass('secondary', 'mt-5 self-start')}>
                Open {tool.name.toLowerCase()}
              </Link>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="testimonials" className="bg-gradient-to-b from-white to-indigo-50/60 py-16">
        <div className="mx-auto max-w-6xl px-4 sm:px-6">
          <SectionHeading id="testimonials" eyebrow="Testimonials" title="Teams ship faster with Facet Studio" />
          <div className="mt-10">
            <TestimonialCarousel testimonials={TESTIMONIALS} />
          </div>
        </div>
      </section>

      <section aria-labelledby="faq" className="mx-auto max-w-3xl px-4 py-16 sm:px-6">
        <SectionHeading id="faq" eyebrow="FAQ" title="Questions, answered" />
        <div className="mt-10 divide-y divide-slate-200 rounded-2xl border border-slate-200 bg-white" data-testid="faq">
          {faq.map((entry) => (
            <details key={entry.question} className="group p-5">
              <summary className="flex cursor-pointer list-none items-center justify-between gap-4 rounded-md text-left font-semibold text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
                {entry.question}
                <span aria-hidden="true" className="text-xl text-slate-400 transition-transform group-open:rotate-45">
                  +
                </span>
              </summary>
              <p className="mt-3 text-sm leading-relaxed text-slate-600">{entry.answer}</p>
            </details>
          ))}
        </div>
      </section>

      <section className="px-4 pb-20 sm:px-6">
        <div className="mx-auto max-w-5xl rounded-3xl bg-slate-900 px-6 py-14 text-center text-white sm:px-12">
          <h2 className="text-3xl font-bold tracking-tight sm:text-4xl">Ready for your next batch of images?</h2>
          <p className="mx-auto mt-4 max-w-xl text-slate-300">
            Create an account, verify your email and get {formatCredits(facts.signupBonus)} to spend on any of the five tools.
          </p>
          <Link to="/login" className={buttonClass('inverse', 'mt-8 px-6 py-3 text-base')}>
            Create free account
          </Link>
        </div>
      </section>
    </>
  )
}
