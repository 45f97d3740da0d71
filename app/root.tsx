import type { LinksFunction, LoaderFunctionArgs } from '@remix-run/node'
import { data, Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import { config } from '~/config.server'
import { loadViewer } from '~/features/credits/viewer.server'
import { SiteLayout } from '~/ui/layout/site-layout'
import { useNonce } from '~/utils/nonce'
import stylesheet from './styles/app.css?url'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const { viewer, headers } = await loadViewer(request)
  const c = config()
  return data(
    { viewer, site: { supportEmail: c.SUPPORT_EMAIL, statusPageUrl: c.STATUS_PAGE_URL } },
    { headers },
  )
}

export type RootLoaderData = Awaited<ReturnType<typeof loader>>['data']

export function useRootData() {
  return useRouteLoaderData<typeof loader>('root')
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce()
  return (
    <html lang="en" className="light" data-theme="light">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#ffffff" />
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
    <SiteLayout viewer={viewer}>
      <Outlet />
    </SiteLayout>
  )
}
