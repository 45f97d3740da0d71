import { sql } from 'kysely'
import { getDb, databaseHandle } from '~/db/db.server'

export async function loader() {
  try {
    await sql`select 1`.execute(getDb())
  } catch (error) {
    return Response.json(
      { status: 'error', database: { ok: false, error: (error as Error).message } },
      { status: 503, headers: { 'Cache-Control': 'no-store' } },
    )
  }
  return Response.json(
    { status: 'ok', database: { ok: true, kind: databaseHandle().kind } },
    { headers: { 'Cache-Control': 'no-store' } },
  )
}
