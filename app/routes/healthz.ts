import { sql } from 'kysely'
import { getDb, databaseHandle } from '~/db/db.server'
import { queueHealth } from '~/features/tools/jobs/health.server'
import { modelStatus } from '~/features/tools/models/registry.server'

export async function loader() {
  const models = await modelStatus()
  try {
    await sql`select 1`.execute(getDb())
  } catch (error) {
    return Response.json(
      { status: 'error', database: { ok: false, error: (error as Error).message }, models },
      { status: 503, headers: { 'Cache-Control': 'no-store' } },
    )
  }
  return Response.json(
    { status: 'ok', database: { ok: true, kind: databaseHandle().kind }, models, queue: await queueHealth() },
    { headers: { 'Cache-Control': 'no-store' } },
  )
}
