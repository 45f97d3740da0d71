// GET /console/audit.csv: the audit log with the page's filters, as a CSV download (operators only).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { auditCsvStream } from '~/features/audit/export.server'
import { parseAuditFilters } from '~/features/audit/filters.server'
import { requireOperator } from '~/features/account/guards.server'

export async function loader({ request }: LoaderFunctionArgs) {
  await requireOperator(request)
  const { filters } = parseAuditFilters(new URL(request.url))
  const day = new Date().toISOString().slice(0, 10)
  return new Response(auditCsvStream(filters), {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="audit-log-${day}.csv"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
