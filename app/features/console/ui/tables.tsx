// Tables more than one console page shows: an account's latest ledger rows and audit entries.
import { AUDIT_ACTIONS, isAuditAction } from '~/features/audit/actions'
import type { AuditRow } from '~/features/audit/audit.server'
import { cellClass, ConsoleTable, UtcTime } from './parts'

export interface LedgerRowView {
  id: number
  at: Date | string
  kind: string
  delta: number
  balanceAfter: number
  description: string | null
}

export function LedgerTable({ rows }: { rows: LedgerRowView[] }) {
  return (
    <ConsoleTable label="Latest ledger rows" head={['When', 'Kind', 'Change', 'Balance after', 'Description']} empty={rows.length === 0}>
      {rows.map((r) => (
        <tr key={r.id}>
          <td className={`${cellClass} whitespace-nowrap`}>
            <UtcTime at={r.at} />
          </td>
          <td className={cellClass}>{r.kind}</td>
          <td className={`${cellClass} tabular-nums`}>{r.delta > 0 ? `+${r.delta}` : r.delta}</td>
          <td className={`${cellClass} tabular-nums`}>{r.balanceAfter}</td>
          <td className={`${cellClass} [overflow-wrap:anywhere]`}>{r.description ?? '—'}</td>
        </tr>
      ))}
    </ConsoleTable>
  )
}

/** An audit row as a loader hands it over (its time may arrive serialised). */
export type AuditRowView = Omit<AuditRow, 'createdAt'> & { createdAt: Date | string }

export function actionLabel(action: string): string {
  return isAuditAction(action) ? AUDIT_ACTIONS[action] : action
}

export function AuditTable({ rows, label = 'Audit entries' }: { rows: AuditRowView[]; label?: string }) {
  return (
    <ConsoleTable label={label} head={['When', 'Actor', 'Action', 'Target', 'Details']} empty={rows.length === 0}>
      {rows.map((r) => (
        <tr key={r.id}>
          <td className={`${cellClass} whitespace-nowrap`}>
            <UtcTime at={r.createdAt} />
          </td>
          <td className={`${cellClass} [overflow-wrap:anywhere]`}>{r.actorEmail ?? r.actor}</td>
          <td className={cellClass}>
            {actionLabel(r.action)} <span className="block text-xs text-slate-600">{r.action}</span>
          </td>
          <td className={`${cellClass} [overflow-wrap:anywhere]`}>
            {r.targetType} <span className="block font-mono text-xs text-slate-600">{r.targetId}</span>
          </td>
          <td className={`${cellClass} min-w-64 font-mono text-xs [overflow-wrap:anywhere]`}>{JSON.stringify(r.details)}</td>
        </tr>
      ))}
    </ConsoleTable>
  )
}
