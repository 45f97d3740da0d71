import type { ReactNode } from 'react'

export function SectionHeading({
  eyebrow,
  title,
  intro,
  id,
  align = 'center',
}: {
  eyebrow?: string
  title: string
  intro?: ReactNode
  id?: string
  align?: 'center' | 'left'
}) {
  return (
    <div className={align === 'center' ? 'mx-auto max-w-2xl text-center' : 'max-w-2xl'}>
      {eyebrow ? <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">{eyebrow}</p> : null}
      <h2 id={id} className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
        {title}
      </h2>
      {intro ? <p className="mt-4 text-lg text-slate-600">{intro}</p> : null}
    </div>
  )
}

export function PageHero({ eyebrow, title, children }: { eyebrow?: string; title: string; children?: ReactNode }) {
  return (
    <section className="bg-gradient-to-b from-indigo-50 to-white">
      <div className="mx-auto max-w-4xl px-4 pb-12 pt-14 text-center sm:px-6 sm:pt-20">
        {eyebrow ? <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">{eyebrow}</p> : null}
        <h1 className="mt-3 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">{title}</h1>
        {children ? <div className="mx-auto mt-5 max-w-2xl text-lg text-slate-600">{children}</div> : null}
      </div>
    </section>
  )
}

export function ToolIcon({ slug, className = 'h-6 w-6' }: { slug: string; className?: string }) {
  const common = { fill: 'none', stroke: 'currentColor', strokeWidth: 1.8, strokeLinecap: 'round', strokeLinejoin: 'round' } as const
  return (
    <svg viewBox="0 0 24 24" className={className} aria-hidden="true" {...common}>
      {slug === 'background-remover' ? (
        <>
          <path d="M4 4h6M14 4h6v6M20 14v6h-6M10 20H4v-6M4 10V4" strokeDasharray="2 2" />
          <circle cx="12" cy="10" r="3" />
          <path d="M7 18c1-3 3-4 5-4s4 1 5 4" />
        </>
      ) : slug === 'face-restorer' ? (
        <>
          <circle cx="12" cy="12" r="8" />
          <path d="M9 10h.01M15 10h.01M9 15c1.5 1.2 4.5 1.2 6 0" />
          <path d="M19 3l.7 1.6L21 5l-1.3.6L19 7l-.6-1.4L17 5l1.4-.4Z" />
        </>
      ) : slug === 'face-blurrer' ? (
        <>
          <circle cx="12" cy="12" r="8" strokeDasharray="3 2" />
          <path d="M8 12h8M9 9h6M9 15h6" />
        </>
      ) : slug === 'svg-converter' ? (
        <>
          <path d="M4 17 9 7l5 10" />
          <path d="M6 13h6" />
          <path d="M15 12h5m-2-2 2 2-2 2" />
        </>
      ) : (
        <>
          <rect x="3" y="3" width="8" height="8" rx="1.5" />
          <rect x="9" y="9" width="12" height="12" rx="2" />
          <path d="M13 17l2-2 2 2 2-3" />
        </>
      )}
    </svg>
  )
}
