import { Link, useLocation } from '@remix-run/react'
import { useEffect } from 'react'

export const NOT_FOUND_SENTENCE = 'The page you requested cannot be found on Facet Studio.'

export function NotFound() {
  const { pathname } = useLocation()
  useEffect(() => {
    // Spec §2: the unknown path is logged to the console.
    console.error(`404: no page at ${pathname}`)
  }, [pathname])
  return (
    <section className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center sm:py-32">
      <p className="text-7xl font-black tracking-tight text-indigo-600">404</p>
      <h1 className="mt-4 text-2xl font-semibold text-slate-900">{NOT_FOUND_SENTENCE}</h1>
      <p className="mt-3 text-slate-600">Check the address, or start again from the home page.</p>
      <Link
        to="/"
        className="mt-8 rounded-full bg-slate-900 px-6 py-3 text-sm font-semibold text-white hover:bg-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        Return to Home
      </Link>
    </section>
  )
}
