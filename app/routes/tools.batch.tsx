// /tools/batch: many images through one tool; see features/batches/page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { batchPageAction, loadBatchPage } from '~/features/batches/page.server'
import { BatchForm, BatchStatus } from '~/features/batches/ui/batch-screen'
import { JOB_REFRESH_SECONDS } from '~/features/tools/ui/page-result'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: 'Batch: many images through one tool | Facet Studio' },
  // A running batch's page reloads itself (no JavaScript needed).
  ...(data?.batch && data.batch.status === 'running' ? [{ httpEquiv: 'refresh', content: String(JOB_REFRESH_SECONDS) }] : []),
]

export function loader({ request }: LoaderFunctionArgs) {
  return loadBatchPage(request)
}

export function action({ request }: ActionFunctionArgs) {
  return batchPageAction(request)
}

export default function BatchPage() {
  const { batch, notFound } = useLoaderData<typeof loader>()
  const failed = useActionData<typeof action>()
  return (
    <div className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Batch</h1>
      <p className="mt-2 text-slate-600">Drop many images (or one zip), choose one tool, and download every result at once. Each image is charged when it runs and refunded if it fails.</p>
      <div className="mt-8">
        {batch ? <BatchStatus batch={batch} /> : null}
        {notFound ? <p role="alert" className="mb-6 text-sm text-red-800">No such batch.</p> : null}
        {!batch ? <BatchForm error={failed?.error} /> : null}
      </div>
    </div>
  )
}
