// /feedback/<job>: "This result is wrong" for the job's owner (decision 175). The report forms beside
// results post here; without JavaScript this page answers, with the way back to where the form was.
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { useId } from 'react'
import { ReportFields, ReportOutcome } from '~/features/tools/ui/report-wrong'
import { reportFromForm, reportPageView } from '~/features/feedback/ui/report-page.server'
import { REPORT_WORDS, reportPath } from '~/catalog/feedback'
import { PRIVATE_NO_STORE } from '~/http/headers'

export const meta: MetaFunction = () => [{ title: `${REPORT_WORDS} · Facet Studio` }, { name: 'robots', content: 'noindex, nofollow' }]

export async function loader({ request, params }: LoaderFunctionArgs) {
  return data(await reportPageView(request, params.jobId), { headers: PRIVATE_NO_STORE })
}

export function action({ request, params }: ActionFunctionArgs) {
  return reportFromForm(request, params.jobId)
}

export default function ReportPage() {
  const view = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const noteId = useId()
  const back = answer?.ok ? answer.back : null
  return (
    <main className="mx-auto w-full max-w-xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{REPORT_WORDS}</h1>
      <p className="mt-2 text-slate-700">
        {view.toolName}: {view.filename}
      </p>
      {answer ? <ReportOutcome answer={answer} /> : null}
      {back ? (
        <p className="mt-4">
          <Link to={back} className="font-semibold text-indigo-700 underline underline-offset-2">
            Back to the result
          </Link>
        </p>
      ) : (
        <Form method="post" action={reportPath(view.jobId)} className="mt-6" aria-label={REPORT_WORDS}>
          <ReportFields back="" noteId={noteId} />
        </Form>
      )}
    </main>
  )
}
