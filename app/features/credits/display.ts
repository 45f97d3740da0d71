// How credits read on screen (spec §3 and §9). Client-safe pure functions, shared by /credits,
// the dashboard and the header.
import type { CreditKind } from '~/db/schema'

export const RECENT_ACTIVITY_ON_CREDITS = 6
export const RECENT_ACTIVITY_ON_DASHBOARD = 5
export const CREDIT_POLL_INTERVAL_MS = 4000

export const EMPTY_PACKAGES = 'No credit packages are available right now.'
export const EMPTY_ACTIVITY = 'No credit activity yet. Run a tool to see it here.'

/** A ledger row as the API and the screens carry it. */
export interface TransactionView {
  id: number
  kind: CreditKind
  delta: number
  description: string | null
  tool_slug: string | null
  /** ISO 8601. */
  created_at: string
}

const KIND_LABELS: Record<CreditKind, string> = {
  purchase: 'Purchase',
  consume: 'Usage',
  adjustment: 'Adjustment',
  bonus: 'Bonus',
}

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind as CreditKind] ?? kind
}

/** Ledger slugs use underscores; people read spaces. */
export function displayToolSlug(slug: string | null | undefined): string | null {
  return slug ? slug.replace(/_/g, ' ') : null
}

/** balance / (balance + lifetime_spent) as a percentage, capped at 100; 100 when both are zero. */
export function percentRemaining(balance: number, lifetimeSpent: number): number {
  const total = balance + lifetimeSpent
  if (total <= 0) return 100
  return Math.min(100, Math.max(0, (balance / total) * 100))
}

/** A signed delta: '+50', '-1' (with a true minus sign), '0'. */
export function formatDelta(delta: number): string {
  if (delta > 0) return `+${delta.toLocaleString('en-US')}`
  if (delta < 0) return `\u2212${Math.abs(delta).toLocaleString('en-US')}`
  return '0'
}

/** The one pluralising helper, re-exported for the screens that import credits' display functions. */
export { formatCredits } from '~/utils/credits-word'

/** Dollars without needless cents: '$9', '$39', '$9.50'. */
export function formatPrice(dollars: number): string {
  return Number.isInteger(dollars) ? `$${dollars.toLocaleString('en-US')}` : `$${dollars.toFixed(2)}`
}

/** A date that reads the same on the server and in the browser (UTC), e.g. 'Nov 22, 2026, 10:24 UTC'. */
export function formatActivityDate(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  return (
    date.toLocaleString('en-US', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hour12: false,
      timeZone: 'UTC',
    }) + ' UTC'
  )
}

/** What one activity row says: label, the tool (spaces) or description, signed delta. */
export function describeTransaction(t: TransactionView): { label: string; detail: string | null; delta: string; positive: boolean } {
  const tool = displayToolSlug(t.tool_slug)
  const detail = [tool, t.description].filter(Boolean).join(' · ') || null
  return { label: kindLabel(t.kind), detail, delta: formatDelta(t.delta), positive: t.delta > 0 }
}
