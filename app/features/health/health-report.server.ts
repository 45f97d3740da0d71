// What /healthz tells whom (decision 162). Anyone may ask whether the studio is up: the status, whether
// the database answers and which models are installed (GET /api/models/ says as much). The details
// (the database's kind and error, the queue with each worker's host name and process id, PUBLIC_URL
// and its warning) go only to whoever may read /metrics (a loopback peer that no proxy forwarded, or
// a holder of METRICS_TOKEN: observability/metrics-access.server.ts) and to a signed-in operator.
import { sql } from 'kysely'
import { config } from '~/config.server'
import { databaseHandle, getDb } from '~/db/db.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { isOperatorEmail } from '~/features/account/guards.server'
import { metricsAccess, wasForwarded } from '~/features/observability/metrics-access.server'
import { clientAddress } from '~/features/security/rate-limit.server'
import { queueHealth } from '~/features/jobs/health.server'
import { modelStatus } from '~/features/tools/models/registry.server'

/** May this caller see the details: the same rule as /metrics, or an operator's session. */
export async function seesHealthDetails(request: Request): Promise<boolean> {
  const headers = Object.fromEntries(request.headers)
  const access = metricsAccess(
    { remoteAddress: clientAddress(request), authorization: request.headers.get('authorization') ?? undefined, forwarded: wasForwarded(headers) },
    config().METRICS_TOKEN,
  )
  if (access.allowed) return true
  const auth = await getAuthentication(request)
  return auth.kind === 'user' && isOperatorEmail(auth.user.email)
}

export async function healthReport(request: Request): Promise<{ status: 200 | 503; body: Record<string, unknown> }> {
  const detailed = await seesHealthDetails(request)
  const models = await modelStatus()
  try {
    await sql`select 1`.execute(getDb())
  } catch (error) {
    const database = detailed ? { ok: false, error: (error as Error).message } : { ok: false }
    return { status: 503, body: { status: 'error', database, models, ...(detailed ? { publicUrl: publicUrl() } : {}) } }
  }
  if (!detailed) return { status: 200, body: { status: 'ok', database: { ok: true }, models } }
  return { status: 200, body: { status: 'ok', database: { ok: true, kind: databaseHandle().kind }, models, queue: await queueHealth(), publicUrl: publicUrl() } }
}

/** Mail links are built from PUBLIC_URL: a default left in place while listening elsewhere is reported. */
function publicUrl() {
  return { value: config().PUBLIC_URL, warning: config().publicUrlWarning }
}
