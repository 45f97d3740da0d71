// The recent-activity list (spec §2): kind label, tool or description, date, signed delta.
// /credits shows 6 items, the dashboard 5.
import { describeTransaction, EMPTY_ACTIVITY, formatActivityDate, type TransactionView } from './display'

export function ActivityList({ transactions }: { transactions: TransactionView[] }) {
  if (transactions.length === 0) {
    return (
      <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-600">
        {EMPTY_ACTIVITY}
      </p>
    )
  }
  return (
    <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="credit-activity">
      {transactions.map((t) => {
        const row = describeTransaction(t)
        return (
          <li key={t.id} className="flex items-center justify-between gap-3 px-4 py-3">
            <div className="min-w-0">
              <p className="text-sm font-semibold text-slate-900">{row.label}</p>
              {row.detail ? <p className="truncate text-sm text-slate-600">{row.detail}</p> : null}
              <p className="text-xs text-slate-500">
                <time dateTime={t.created_at}>{formatActivityDate(t.created_at)}</time>
              </p>
            </div>
            <span
              className={`shrink-0 text-sm font-semibold tabular-nums ${row.positive ? 'text-emerald-700' : 'text-slate-900'}`}
            >
              {row.delta}
            </span>
          </li>
        )
      })}
    </ul>
  )
}
