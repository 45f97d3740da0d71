// /console/queue: the tool queue (jobs waiting and running, the workers pg-boss heard from), the jobs
// that failed with their errors, and the webhook deliveries that are failing. Each list pages on its
// own query parameter.
import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { requireOperator } from '~/features/account/guards.server'
import { failedJobs, failingDeliveries, queueHealth } from '~/features/console/operations.server'
import { pageParam } from '~/utils/paging'
import { cellClass, ConsoleTable, Figure, Pager, SectionHeading, UtcTime } from '~/features/console/ui/parts'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const url = new URL(request.url)
  const jobsPage = pageParam(url, 'jobs')
  const hooksPage = pageParam(url, 'webhooks')
  const [queue, jobs, deliveries] = await Promise.all([queueHealth(), failedJobs(jobsPage), failingDeliveries(hooksPage)])
  return data(
    { queue, jobs: { ...jobs, page: jobsPage }, deliveries: { ...deliveries, page: hooksPage } },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

export default function ConsoleQueue() {
  const { queue, jobs, deliveries } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">Queue and webhooks</h1>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Waiting" value={String(queue.waiting)} />
        <Figure label="Running" value={String(queue.running)} />
        <Figure label="Workers seen" value={String(queue.workers.length)} />
        <Figure label="This process" value={queue.role} />
      </dl>

      <section>
        <SectionHeading id="workers-heading">Workers</SectionHeading>
        <ConsoleTable label="Workers" head={['Host', 'Process', 'Slots', 'Running', 'Last heartbeat']} empty={queue.workers.length === 0}>
          {queue.workers.map((w) => (
            <tr key={`${w.host}-${w.pid}-${w.name}`}>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>{w.host}</td>
              <td className={`${cellClass} tabular-nums`}>{w.pid}</td>
              <td className={`${cellClass} tabular-nums`}>{w.slots}</td>
              <td className={`${cellClass} tabular-nums`}>{w.active}</td>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={w.heartbeatOn} />
              </td>
            </tr>
          ))}
        </ConsoleTable>
      </section>

      <section>
        <SectionHeading id="failed-heading">Failed jobs</SectionHeading>
        <ConsoleTable label="Failed jobs" head={['Ended', 'Tool', 'Account', 'Error', 'Status', 'Attempts', 'Job']} empty={jobs.rows.length === 0}>
          {jobs.rows.map((j) => (
            <tr key={j.id}>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={j.finishedAt ?? j.createdAt} />
              </td>
              <td className={cellClass}>{j.tool}</td>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>
                {j.owner ? (
                  <Link to={`/console/${j.owner.kind}s/${j.owner.id}`} className="font-semibold text-indigo-700 underline-offset-2 hover:underline">
                    {j.owner.label}
                  </Link>
                ) : (
                  'guest'
                )}
              </td>
              <td className={`${cellClass} min-w-64 [overflow-wrap:anywhere]`}>{j.error ?? '—'}</td>
              <td className={`${cellClass} tabular-nums`}>{j.errorStatus ?? '—'}</td>
              <td className={`${cellClass} tabular-nums`}>{j.attempts}</td>
              <td className={`${cellClass} font-mono text-xs`}>{j.id}</td>
            </tr>
          ))}
        </ConsoleTable>
        <Pager label="Failed jobs pages" param="jobs" page={jobs.page} hasMore={jobs.hasMore} />
      </section>

      <section>
        <SectionHeading id="webhooks-heading">Failing webhook deliveries</SectionHeading>
        <p className="mt-1 text-sm text-slate-600">Given up, or retrying after a failed attempt.</p>
        <ConsoleTable
          label="Failing webhook deliveries"
          head={['Last attempt', 'Endpoint', 'Event', 'State', 'Attempts', 'Last answer', 'Next attempt']}
          empty={deliveries.rows.length === 0}
        >
          {deliveries.rows.map((d) => (
            <tr key={d.id}>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={d.updatedAt} />
              </td>
              <td className={`${cellClass} [overflow-wrap:anywhere]`}>{d.url}</td>
              <td className={cellClass}>{d.eventType}</td>
              <td className={cellClass}>{d.status === 'failed' ? 'given up' : 'retrying'}</td>
              <td className={`${cellClass} tabular-nums`}>{d.attempts}</td>
              <td className={`${cellClass} min-w-48 [overflow-wrap:anywhere]`}>
                {d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : ''} {d.lastError ?? ''}
              </td>
              <td className={`${cellClass} whitespace-nowrap`}>
                <UtcTime at={d.nextAttemptAt} />
              </td>
            </tr>
          ))}
        </ConsoleTable>
        <Pager label="Failing webhook deliveries pages" param="webhooks" page={deliveries.page} hasMore={deliveries.hasMore} />
      </section>
    </>
  )
}
