import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useRootData } from '~/features/layout/root-data'
import { TOOLS } from '~/catalog/tools'
import { FaceBlurrerScreen } from '~/features/tools/ui/face-blurrer-screen'
import { runToolPageAction } from '~/features/tools/page-action.server'
import { loadToolPage } from '~/features/tools/page-loader.server'
import { toolMeta } from '~/features/tools/ui/structured-data'

const tool = TOOLS['face-blurrer']

export const meta: MetaFunction<typeof loader> = ({ data }) => toolMeta(tool, data?.publicUrl)

export function loader({ request }: LoaderFunctionArgs) {
  return loadToolPage(tool.slug, request)
}

export function action({ request }: ActionFunctionArgs) {
  return runToolPageAction(request, tool.slug)
}

export default function FaceBlurrerPage() {
  const { cost, pageResult: postedResult } = useLoaderData<typeof loader>()
  // A failed post renders from the action; a run that delivered redirected here with ?result=<id>.
  const pageResult = useActionData<typeof action>() ?? postedResult ?? undefined
  const root = useRootData()
  return (
    <>
      <FaceBlurrerScreen cost={cost} viewer={root?.viewer} pageResult={pageResult} />
    </>
  )
}
