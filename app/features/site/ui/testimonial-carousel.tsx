// Auto-rotating testimonials (spec §2): 6 s interval, pauses on hover and on keyboard focus, wraps
// at both ends, previous/next controls. Without JavaScript every testimonial is listed instead.
import { useEffect, useState } from 'react'
import { CAROUSEL_INTERVAL_MS, wrapIndex, type Testimonial } from '~/features/site/testimonials'
import { useHydrated } from '~/ui/use-hydrated'

function Stars({ rating }: { rating: number }) {
  return (
    <span role="img" aria-label={`Rated ${rating} out of 5`} className="text-lg tracking-wider text-amber-500">
      {'★'.repeat(rating)}
      <span className="text-slate-300">{'★'.repeat(Math.max(0, 5 - rating))}</span>
    </span>
  )
}

// slate-950: dark enough that every avatar colour reaches 4.5:1 with one of the two.
const INK = '#020617'

/** White or ink, whichever contrasts more with the avatar's colour (WCAG relative luminance). */
export function initialsColour(hex: string): string {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
  const againstWhite = 1.05 / (luminance + 0.05)
  const againstInk = (luminance + 0.05) / 0.0514
  return againstWhite >= againstInk ? '#ffffff' : INK
}

function Avatar({ initials, colour }: Testimonial['avatar']) {
  return (
    <span
      aria-hidden="true"
      className="flex h-11 w-11 shrink-0 items-center justify-center rounded-full text-sm font-bold"
      style={{ backgroundColor: colour, color: initialsColour(colour) }}
    >
      {initials}
    </span>
  )
}

function TestimonialCard({ t }: { t: Testimonial }) {
  return (
    <figure className="m-0 flex h-full flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
      <Stars rating={t.rating} />
      <blockquote className="mt-3 flex-1 text-base leading-relaxed text-slate-700">“{t.content}”</blockquote>
      <figcaption className="mt-5 flex items-center gap-3">
        <Avatar {...t.avatar} />
        <span>
          <span className="block text-sm font-semibold text-slate-900">{t.name}</span>
          <span className="block text-sm text-slate-600">{t.role}</span>
        </span>
      </figcaption>
    </figure>
  )
}

const controlClass =
  'flex h-10 w-10 items-center justify-center rounded-full border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

export function TestimonialCarousel({
  testimonials,
  intervalMs = CAROUSEL_INTERVAL_MS,
}: {
  testimonials: readonly Testimonial[]
  intervalMs?: number
}) {
  const hydrated = useHydrated()
  const [index, setIndex] = useState(0)
  const [hovered, setHovered] = useState(false)
  const [focused, setFocused] = useState(false)
  const paused = hovered || focused
  const count = testimonials.length

  useEffect(() => {
    if (!hydrated || paused || count < 2) return
    const timer = window.setInterval(() => setIndex((i) => wrapIndex(i + 1, count)), intervalMs)
    return () => window.clearInterval(timer)
  }, [hydrated, paused, count, intervalMs])

  if (!hydrated) {
    return (
      // Focusable, so a keyboard can scroll the row (it is a scrolling region without JavaScript).
      <ul tabIndex={0} className="-mx-4 flex snap-x snap-mandatory gap-4 overflow-x-auto px-4 pb-4 focus-visible:outline-2 focus-visible:outline-indigo-600" aria-label="Testimonials">
        {testimonials.map((t) => (
          <li key={t.name} className="w-[85%] max-w-md shrink-0 snap-start">
            <TestimonialCard t={t} />
          </li>
        ))}
      </ul>
    )
  }

  const current = testimonials[index]!
  return (
    <section
      aria-roledescription="carousel"
      aria-label="Testimonials"
      data-testid="testimonial-carousel"
      data-paused={paused ? 'true' : 'false'}
      className="mx-auto max-w-2xl"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocused(false)
      }}
    >
      <div aria-live={paused ? 'polite' : 'off'} aria-atomic="true">
        <div role="group" aria-roledescription="slide" aria-label={`${index + 1} of ${count}`} key={index}>
          <TestimonialCard t={current} />
        </div>
      </div>
      <div className="mt-5 flex items-center justify-center gap-4">
        <button
          type="button"
          className={controlClass}
          aria-label="Previous testimonial"
          onClick={() => setIndex((i) => wrapIndex(i - 1, count))}
        >
          <span aria-hidden="true">←</span>
        </button>
        <p className="min-w-16 text-center text-sm tabular-nums text-slate-600" data-testid="carousel-position">
          {index + 1} / {count}
        </p>
        <button
          type="button"
          className={controlClass}
          aria-label="Next testimonial"
          onClick={() => setIndex((i) => wrapIndex(i + 1, count))}
        >
          <span aria-hidden="true">→</span>
        </button>
      </div>
    </section>
  )
}
