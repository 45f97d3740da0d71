import { sql } from 'kysely'
import { config } from '~/config.server'
import { getDb, databaseHandle } from '~/db/db.server'
import { queueHealth } from '~/features/tools/jobs/health.server'
import { modelStatus } from '~/features/tools/models/registry.server'

export async function loader() {
  const models = await modelStatus()
  // Mail links are built from PUBLIC_URL: a default left in place while listening elsewhere is reported.
  const publicUrl = { value: config().PUBLIC_URL, warning: config().publicUrlWarning }
  try {
    await sql`select 1`.execute(getDb())
  } catch (error) {
    return Response.json(
      { status: 'error', database: { ok: false, error: (error as Error).message }, models, publicUrl },
      { status: 503, headers: { 'Cache-Control': 'no-store' } },
    )
  }
  return Response.json(
    { status: 'ok', database: { ok: true, kind: databaseHandle().kind }, models, queue: await queueHealth(), publicUrl },
    { headers: { 'Cache-Control': 'no-store' } },
  )
}
