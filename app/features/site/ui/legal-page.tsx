import type { LegalDocument } from '~/features/site/legal'
import { LEGAL_LAST_UPDATED } from '~/features/site/legal'

export function LegalPage({ doc }: { doc: LegalDocument }) {
  return (
    <article className="mx-auto max-w-3xl px-4 py-14 sm:px-6 sm:py-20">
      <header>
        <h1 className="text-4xl font-bold tracking-tight text-slate-900">{doc.title}</h1>
        <p className="mt-3 text-sm font-medium text-slate-500">Last updated {LEGAL_LAST_UPDATED}</p>
        <p className="mt-6 text-lg text-slate-600">{doc.intro}</p>
      </header>
      <nav aria-label="On this page" className="mt-8 rounded-2xl bg-slate-50 p-5">
        <ol className="grid gap-1.5 text-sm sm:grid-cols-2">
          {doc.sections.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} className="text-indigo-700 hover:underline">
                {s.heading}
              </a>
            </li>
          ))}
        </ol>
      </nav>
      {doc.sections.map((s) => (
        <section key={s.id} aria-labelledby={s.id} className="mt-10">
          <h2 id={s.id} className="scroll-mt-24 text-xl font-semibold text-slate-900">
            {s.heading}
          </h2>
          {s.paragraphs.map((p) => (
            <p key={p} className="mt-3 leading-relaxed text-slate-700">
              {p}
            </p>
          ))}
          {s.list ? (
            <ul className="mt-3 list-disc space-y-1.5 pl-6 text-slate-700">
              {s.list.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          ) : null}
        </section>
      ))}
    </article>
  )
}
