// /console/audit: the audit log, newest first, filtered by action, actor, target and UTC dates (a GET
// form: works without JavaScript, the address can be shared), a page at a time, and downloadable as
// CSV with the same filters.
import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import { AUDIT_ACTIONS } from '~/features/audit/actions'
import { listAudit } from '~/features/audit/audit.server'
import { auditFilterQuery, parseAuditFilters } from '~/features/audit/filters.server'
import { requireOperator } from '~/features/account/guards.server'
import { pageParam } from '~/utils/paging'
import { Pager } from '~/features/console/ui/parts'
import { AuditTable } from '~/features/console/ui/tables'
import { buttonClass, inputClass } from '~/ui/button'
import { FormMessage } from '~/ui/field'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const url = new URL(request.url)
  const { filters, problems } = parseAuditFilters(url)
  const page = pageParam(url)
  const entries = await listAudit(filters, page)
  const query = auditFilterQuery(filters)
  return data(
    { filters, problems, entries: { ...entries, page }, csvHref: `/console/audit.csv${query ? `?${query}` : ''}` },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

const ACTION_OPTIONS = Object.entries(AUDIT_ACTIONS)

function FilterField({ id, label, children }: { id: string; label: string; children: React.ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div className="mt-1.5">{children}</div>
    </div>
  )
}

export default function ConsoleAudit() {
  const { filters, problems, entries, csvHref } = useLoaderData<typeof loader>()
  return (
    <>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">Audit log</h1>
      <p className="mt-2 text-sm text-slate-600">
        Every operator and team-admin action, as it was recorded. Entries are never changed or deleted.
      </p>
      <Form method="get" className="mt-4 grid gap-4 rounded-xl border border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Filter the audit log">
        <FilterField id="audit-action" label="Action">
          <select id="audit-action" name="action" defaultValue={filters.action ?? ''} className={inputClass}>
            <option value="">Any action</option>
            {ACTION_OPTIONS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </FilterField>
        <FilterField id="audit-actor" label="Actor (email, user id or cli)">
          <input id="audit-actor" name="actor" defaultValue={filters.actor ?? ''} className={inputClass} autoComplete="off" />
        </FilterField>
        <FilterField id="audit-target" label="Target id">
          <input id="audit-target" name="target" defaultValue={filters.target ?? ''} className={inputClass} autoComplete="off" />
        </FilterField>
        <FilterField id="audit-from" label="From (UTC day)">
          <input id="audit-from" name="from" type="date" defaultValue={filters.from ?? ''} className={inputClass} />
        </FilterField>
        <FilterField id="audit-to" label="To (UTC day)">
          <input id="audit-to" name="to" type="date" defaultValue={filters.to ?? ''} className={inputClass} />
        </FilterField>
        <div className="flex flex-wrap items-end gap-3">
          <button type="submit" className={buttonClass('primary')}>
            Filter
          </button>
          <a href={csvHref} download className={buttonClass('secondary')}>
            Download CSV
          </a>
        </div>
      </Form>
      {problems.length ? (
        <div className="mt-4">
          <FormMessage tone="error">{problems.join(' ')}</FormMessage>
        </div>
      ) : null}
      <AuditTable rows={entries.rows} />
      <Pager label="Audit log pages" page={entries.page} hasMore={entries.hasMore} />
    </>
  )
}
