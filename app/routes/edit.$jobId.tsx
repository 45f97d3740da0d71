// /edit/<job>: correcting a background removal or a face blur by hand (issue 32; decision 158). The
// job's owner only; see features/corrections/ui/edit-page.server.ts.
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { applyEditForm, APPLIED_PARAM, requireEditView } from '~/features/corrections/ui/edit-page.server'
import { EDIT_TITLES, EditScreen } from '~/features/corrections/ui/edit-screen'
import { PRIVATE_NO_STORE } from '~/http/headers'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data ? EDIT_TITLES[data.view.kind] : 'Correct by hand'} · Facet Studio` },
  { name: 'robots', content: 'noindex, nofollow' },
]

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { view } = await requireEditView(request, params.jobId)
  // The result keeps its address when corrected: `shownAt` makes each reading's image a new one.
  return data({ view, applied: new URL(request.url).searchParams.has(APPLIED_PARAM), shownAt: Date.now() }, { headers: PRIVATE_NO_STORE })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { view, accountId } = await requireEditView(request, params.jobId)
  return applyEditForm(request, view, accountId)
}

export default function EditPage() {
  const { view, applied, shownAt } = useLoaderData<typeof loader>()
  const refused = useActionData<typeof action>()
  return <EditScreen view={view} shownAt={shownAt} applied={applied && !refused} error={refused?.error ?? null} />
}
