// Before each integration test file: give the app its own database (a fresh PGlite loaded from the
// migrated dump, or this run's schema in the PostgreSQL test database).
import { readFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, inject } from 'vitest'
import { createPGliteHandle, createPostgresHandle, pgliteOptions, useDatabaseHandle } from '~/db/db.server'
// Features' subscriptions to each other's events, as in every process that ends jobs (decision 118).
import '~/features/wiring.server'

const handle =
  process.env.TEST_DB === 'postgres'
    ? createPostgresHandle(process.env.TEST_DATABASE_URL!, 20, inject('pgSchema'))
    : createPGliteHandle(
        new PGlite({ ...pgliteOptions(), loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]) }),
      )
useDatabaseHandle(handle)

afterAll(async () => {
  await handle.db.destroy()
})
