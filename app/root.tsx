import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import {
  data,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRouteError,
} from '@remix-run/react'
import { useEffect, type ReactNode } from 'react'
import { config } from '~/config.server'
import { isOperatorEmail } from '~/features/account/guards.server'
import { loadViewer } from '~/features/account/viewer.server'
import type { Viewer } from '~/features/account/viewer'
import { useRootData, type RootLoaderData } from '~/features/layout/root-data'
import { SiteLayout } from '~/features/layout/site-layout'
import { STORAGE_SENTENCE } from '~/catalog/retention'
import { NotFound } from '~/ui/not-found'
import { useNonce } from '~/utils/nonce'
import stylesheet from './styles/app.css?url'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

// Routes without their own meta, and error pages, get these. A 404 thrown by any loader is not indexed.
export const meta: MetaFunction = ({ error }) => {
  if (isRouteErrorResponse(error) && error.status === 404) {
    return [{ title: 'Page not found | Facet Studio' }, { name: 'robots', content: 'noindex' }]
  }
  if (error) return [{ title: 'Something went wrong | Facet Studio' }, { name: 'robots', content: 'noindex' }]
  return [{ title: 'Facet Studio' }]
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { viewer, headers } = await loadViewer(request)
  const c = config()
  return data(
    {
      // An operator's header links to the console; nobody else learns that it exists.
      viewer: viewer.user && isOperatorEmail(viewer.user.email) ? { ...viewer, operator: true } : viewer,
      site: { supportEmail: c.SUPPORT_EMAIL, statusPageUrl: c.STATUS_PAGE_URL },
      // What the tool workspace says when a balance runs short: when it refreshes, what signing up gives.
      allowances: { guestDaily: c.GUEST_DAILY_CREDITS, userFloor: c.USER_DAILY_FLOOR, signupBonus: c.SIGNUP_BONUS },
    } satisfies RootLoaderData,
    { headers },
  )
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  // The mark that the page's scripts have taken over: this effect runs after every effect below it, so
  // every enhanced control is live. Journeys wait for it before they use one (tests/e2e/support/test.ts);
  // a click that comes before it does what the control does without JavaScript.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true'
  }, [])
  return (
    <html lang="en" className="light" data-theme="light">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#ffffff" />
        <meta name="color-scheme" content="light" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-white font-sans text-slate-900 antialiased">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  const { viewer } = useLoaderData<typeof loader>()
  return (
    <SiteLayout viewer={viewer} footerNote={STORAGE_SENTENCE}>
      <Outlet />
    </SiteLayout>
  )
}

const SIGNED_OUT: Viewer = { user: null, credits: null, teams: [], workingTeam: null }

/** Errors thrown by any route below root. A 404 gets the 404 page; anything else a short apology. */
export function ErrorBoundary() {
  const error = useRouteError()
  const rootData = useRootData()
  const viewer = rootData?.viewer ?? SIGNED_OUT
  if (isRouteErrorResponse(error) && error.status === 404) {
    return (
      <SiteLayout viewer={viewer} footerNote={STORAGE_SENTENCE}>
        <NotFound />
      </SiteLayout>
    )
  }
  const status = isRouteErrorResponse(error) ? error.status : 500
  return (
    <SiteLayout viewer={viewer} footerNote={STORAGE_SENTENCE}>
      <section className="mx-auto max-w-xl px-4 py-24 text-center">
        <p className="text-6xl font-black text-indigo-600">{status}</p>
        <h1 className="mt-4 text-2xl font-semibold text-slate-900">Something went wrong on our side.</h1>
        <p className="mt-3 text-slate-600">Please try again in a moment. If it keeps happening, contact support.</p>
        <Link
          to="/"
          className="mt-8 inline-block rounded-full bg-slate-900 px-6 py-3 text-sm font-semibold text-white hover:bg-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Return to Home
        </Link>
      </section>
    </SiteLayout>
  )
}
