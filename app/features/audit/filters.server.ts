// The audit log's filters as they arrive in a URL (the console's GET form and the CSV link share
// them): a known action, an actor (user id, email or 'cli'), a target id, and a UTC date range.
// A value that cannot be read is dropped and named, never guessed at.
import { z } from 'zod'
import { isAuditAction } from './actions'
import type { AuditFilters } from './audit.server'

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d))

export interface ParsedAuditFilters {
  filters: AuditFilters
  /** Each filter given but not understood, as a sentence for the page. */
  problems: string[]
}

export function parseAuditFilters(url: URL): ParsedAuditFilters {
  const get = (name: string) => (url.searchParams.get(name) ?? '').trim().slice(0, 200)
  const filters: AuditFilters = {}
  const problems: string[] = []
  const action = get('action')
  if (action) {
    if (isAuditAction(action)) filters.action = action
    else problems.push(`Unknown action "${action}".`)
  }
  if (get('actor')) filters.actor = get('actor')
  if (get('target')) filters.target = get('target')
  for (const name of ['from', 'to'] as const) {
    const value = get(name)
    if (!value) continue
    if (day.safeParse(value).success) filters[name] = value
    else problems.push(`"${value}" is not a date (YYYY-MM-DD).`)
  }
  return { filters, problems }
}

/** The same filters as query parameters (for the CSV link and the pages). */
export function auditFilterQuery(filters: AuditFilters): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, String(value))
  return params.toString()
}
