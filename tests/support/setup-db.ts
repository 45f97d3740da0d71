// Before each integration test file: give the app its own database (a fresh PGlite loaded from the
// migrated dump, or this worker's schema in the PostgreSQL test database). A vitest worker runs one
// file at a time, so a schema per worker (VITEST_POOL_ID) lets PostgreSQL files run in parallel.
import { readFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import { afterAll, inject } from 'vitest'
import { createPGliteHandle, createPostgresHandle, pgliteOptions, useDatabaseHandle, type DatabaseHandle } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
// Features' subscriptions to each other's events, as in every process that ends jobs (decision 118).
import '~/features/wiring.server'

async function postgresHandle(): Promise<DatabaseHandle> {
  const schema = `${inject('pgSchema')}_${process.env.VITEST_POOL_ID ?? '1'}`
  const handle = createPostgresHandle(process.env.TEST_DATABASE_URL!, 20, schema)
  // The worker's first file makes and migrates the schema; later files find it up to date.
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(handle.db)
  await migrateToLatest(handle.db, { schema })
  return handle
}

async function pgliteHandle(): Promise<DatabaseHandle> {
  const pglite = new PGlite({ ...pgliteOptions(), loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]) })
  // Loading the dump takes a while, seconds on a busy machine: here, not in a file's first query, which
  // may be one that runs against a deadline (readiness answers "unreachable" after 2 s).
  await pglite.waitReady
  return createPGliteHandle(pglite)
}

const handle = process.env.TEST_DB === 'postgres' ? await postgresHandle() : await pgliteHandle()
useDatabaseHandle(handle)

afterAll(async () => {
  await handle.db.destroy()
})
