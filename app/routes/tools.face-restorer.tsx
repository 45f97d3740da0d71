import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useRootData } from '~/features/layout/root-data'
import { TOOLS } from '~/catalog/tools'
import { FaceRestorerScreen } from '~/features/tools/ui/face-restorer-screen'
import { runToolPageAction } from '~/features/tools/page-action.server'
import { gfpganAvailable } from '~/features/tools/models/registry.server'
import { loadToolPage } from '~/features/tools/page-loader.server'
import { toolMeta } from '~/features/tools/ui/structured-data'

const tool = TOOLS['face-restorer']

export const meta: MetaFunction<typeof loader> = ({ data }) => toolMeta(tool, data?.publicUrl)

export async function loader({ request }: LoaderFunctionArgs) {
  return { ...(await loadToolPage(tool.slug, request)), gfpganInstalled: gfpganAvailable() }
}

export function action({ request }: ActionFunctionArgs) {
  return runToolPageAction(request, tool.slug)
}

export default function FaceRestorerPage() {
  const { cost, gfpganInstalled, pageResult: postedResult } = useLoaderData<typeof loader>()
  // A failed post renders from the action; a run that delivered redirected here with ?result=<id>.
  const pageResult = useActionData<typeof action>() ?? postedResult ?? undefined
  const root = useRootData()
  return (
    <>
      <FaceRestorerScreen cost={cost} viewer={root?.viewer} pageResult={pageResult} gfpganInstalled={gfpganInstalled} />
    </>
  )
}
