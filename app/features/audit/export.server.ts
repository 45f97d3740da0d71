// The audit log as CSV, streamed: one header line, then every matching entry (newest first), a
// chunk at a time from the database. Cells are CSV-injection-safe (csv.ts).
import type { DbOrTx } from '~/db/db.server'
import { getDb } from '~/db/db.server'
import { eachAuditEntry, type AuditFilters } from './audit.server'
import { csvLine } from './csv'

export const AUDIT_CSV_HEADER = ['id', 'created_at', 'actor', 'actor_email', 'action', 'target_type', 'target_id', 'details']

export function auditCsvStream(filters: AuditFilters, db: DbOrTx = getDb()): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const entries = eachAuditEntry(filters, db)
  let headerSent = false
  return new ReadableStream({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true
        controller.enqueue(encoder.encode(csvLine(AUDIT_CSV_HEADER)))
        return
      }
      const next = await entries.next()
      if (next.done) return controller.close()
      const e = next.value
      controller.enqueue(encoder.encode(csvLine([e.id, e.createdAt, e.actor, e.actorEmail, e.action, e.targetType, e.targetId, e.details])))
    },
    async cancel() {
      await entries.return(undefined)
    },
  })
}
