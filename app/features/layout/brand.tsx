import { Link } from '@remix-run/react'

export function BrandMark({ className = 'h-7 w-7' }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#4f46e5" />
      <path d="M16 5 26 12 22 26H10L6 12Z" fill="#a5b4fc" />
      <path d="M16 5 22 26H10Z" fill="#e0e7ff" />
      <path d="M6 12h20L16 5Z" fill="#c7d2fe" />
    </svg>
  )
}

export function BrandLink() {
  return (
    <Link
      to="/"
      className="flex items-center gap-2 rounded-md font-semibold tracking-tight text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-indigo-600"
    >
      <BrandMark />
      <span className="whitespace-nowrap">Facet Studio</span>
    </Link>
  )
}
