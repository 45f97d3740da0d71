// /console/feedback: the results users reported as wrong (decision 175), newest first, each with its
// note and thumbnails and an export; and the export of all as one zip the quality bench reads.
import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { RESULT_KEPT_HOURS } from '~/catalog/retention'
import { requireOperator } from '~/features/account/guards.server'
import { reportsPage } from '~/features/feedback/console.server'
import { EXPORT_ALL_PATH } from '~/catalog/feedback'
import { cellClass, ConsoleTable, Pager, UtcTime } from '~/features/console/ui/parts'
import { PRIVATE_NO_STORE } from '~/http/headers'
import { pageParam } from '~/utils/paging'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const page = pageParam(new URL(request.url))
  return data({ reports: await reportsPage(page), page }, { headers: PRIVATE_NO_STORE })
}

const linkClass = 'font-semibold text-indigo-700 underline underline-offset-2'

export default function ConsoleFeedback() {
  const { reports, page } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">Reported results</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-700">
        Results users marked as wrong. Each is kept encrypted with its result and deleted with it, {RESULT_KEPT_HOURS} hours after its run. An export is a zip of
        folders for the quality bench: unzip it, then <code>npm run bench -- quality --from-feedback DIR</code>.
      </p>
      <p className="mt-3">
        <a href={EXPORT_ALL_PATH} className={linkClass} download>
          Export all reports (zip)
        </a>
      </p>
      <ConsoleTable label="Reported results" head={['Reported', 'Tool', 'Note', 'Pictures', 'Deleted at', 'Export']} empty={reports.rows.length === 0}>
        {reports.rows.map((r) => (
          <tr key={r.jobId}>
            <td className={`${cellClass} whitespace-nowrap`}>
              <UtcTime at={r.reportedAt} />
            </td>
            <td className={cellClass}>
              {r.tool}
              {r.model ? <span className="block text-xs text-slate-600">{r.model}</span> : null}
            </td>
            <td className={`${cellClass} max-w-xs [overflow-wrap:anywhere]`}>{r.note ?? <span className="text-slate-600">No note</span>}</td>
            <td className={cellClass}>
              <div className="flex gap-2">
                {r.thumbnails.map((t) => (
                  <img key={t.which} src={t.url} alt={t.alt} title={t.alt} width={64} height={64} loading="lazy" className="h-16 w-16 rounded border border-slate-200 bg-slate-100 object-contain" />
                ))}
              </div>
            </td>
            <td className={`${cellClass} whitespace-nowrap`}>
              <UtcTime at={r.expiresAt} />
            </td>
            <td className={cellClass}>
              <a href={r.exportUrl} className={linkClass} download>
                Export<span className="sr-only"> the report of job {r.jobId}</span>
              </a>
            </td>
          </tr>
        ))}
      </ConsoleTable>
      <Pager label="Reported results pages" page={page} hasMore={reports.hasMore} />
    </>
  )
}
