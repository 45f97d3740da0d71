// Home-page testimonials (spec §3: name, role, content, rating, avatar). The people are fictitious;
// avatars are initials drawn in CSS, so the page loads no third-party images.
export interface Testimonial {
  name: string
  role: string
  content: string
  /** 1 to 5 stars. */
  rating: number
  avatar: { initials: string; colour: string }
}

export const TESTIMONIALS: readonly Testimonial[] = [
  {
    name: 'Maya Okafor',
    role: 'Art director, Northlight Agency',
    content:
      'We cut out a whole seasonal catalogue in an afternoon. The PNGs come back at full size, so nothing needs re-exporting before print.',
    rating: 5,
    avatar: { initials: 'MO', colour: '#6366f1' },
  },
  {
    name: 'Daniel Brandt',
    role: 'Photo editor, Harbour Weekly',
    content:
      'The face blurrer catches the people in the back row too, and it strips the metadata. It is now the last step before anything of ours goes online.',
    rating: 5,
    avatar: { initials: 'DB', colour: '#0ea5e9' },
  },
  {
    name: 'Priya Raman',
    role: 'Freelance retoucher',
    content:
      'I restore old family portraits for clients. The face restorer gives me a much better starting point than sharpening by hand.',
    rating: 4,
    avatar: { initials: 'PR', colour: '#10b981' },
  },
  {
    name: 'Tomás Alvarez',
    role: 'E-commerce lead, Casa Verde',
    content:
      'Product shots on a clean white or brand-colour backdrop in seconds. We run it on our own server, so the photos never leave the building.',
    rating: 5,
    avatar: { initials: 'TA', colour: '#f59e0b' },
  },
  {
    name: 'Lena Fischer',
    role: 'UI designer, Fieldwork',
    content:
      'Exporting icons at 2× and 3× from one SVG used to be a chore. Now it is a drop and a click, with transparency kept.',
    rating: 4,
    avatar: { initials: 'LF', colour: '#f472b6' },
  },
]

export const CAROUSEL_INTERVAL_MS = 6000

/** The next index, wrapping at both ends (spec §2). */
export function wrapIndex(index: number, length: number): number {
  if (length <= 0) return 0
  return ((index % length) + length) % length
}
