// /tools/batch: many files through one tool; see features/batches/page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useRootData } from '~/features/layout/root-data'
import { batchPageAction, loadBatchPage } from '~/features/batches/page.server'
import { BatchScreen } from '~/features/batches/ui/batch-screen'

// A running batch's page reloads itself without JavaScript through a <noscript> refresh in the page
// (BatchScreen): with JavaScript it is followed in the background instead, never reloaded.
export const meta: MetaFunction<typeof loader> = () => [{ title: 'Batch: many files through one tool | Facet Studio' }]

export function loader({ request }: LoaderFunctionArgs) {
  return loadBatchPage(request)
}

export function action({ request }: ActionFunctionArgs) {
  return batchPageAction(request)
}

export default function BatchPage() {
  const data = useLoaderData<typeof loader>()
  const failed = useActionData<typeof action>()
  const root = useRootData()
  return <BatchScreen {...data} viewer={root?.viewer} error={failed?.error} overCapCost={failed?.overCapCost} />
}
