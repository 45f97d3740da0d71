import type { MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { config } from '~/config.server'
import { termsOfService } from '~/features/site/legal'
import { LegalPage } from '~/features/site/ui/legal-page'

export const meta: MetaFunction = () => [
  { title: 'Terms of Service | Facet Studio' },
  { name: 'description', content: 'The terms for using Facet Studio: accounts, credits, content policy and liability.' },
]

export function loader() {
  return { doc: termsOfService(config().SUPPORT_EMAIL) }
}

export default function Terms() {
  const { doc } = useLoaderData<typeof loader>()
  return <LegalPage doc={doc} />
}
