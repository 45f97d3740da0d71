import type { MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { config } from '~/config.server'
import { privacyPolicy } from '~/features/site/legal'
import { STORAGE_SENTENCE } from '~/catalog/retention'
import { LegalPage } from '~/features/site/ui/legal-page'

export const meta: MetaFunction = () => [
  { title: 'Privacy Policy | Facet Studio' },
  { name: 'description', content: `What Facet Studio collects, how long it keeps it, and your rights. ${STORAGE_SENTENCE}` },
]

export function loader() {
  return { doc: privacyPolicy(config().SUPPORT_EMAIL) }
}

export default function Privacy() {
  const { doc } = useLoaderData<typeof loader>()
  return <LegalPage doc={doc} />
}
