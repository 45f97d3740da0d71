// Before each integration test file: give the app its own database (a fresh PGlite loaded from the
// migrated dump, or the shared PostgreSQL test database).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll } from 'vitest'
import { createPGliteHandle, createPostgresHandle, pgliteOptions, useDatabaseHandle } from '~/db/db.server'

const handle =
  process.env.TEST_DB === 'postgres'
    ? createPostgresHandle(process.env.TEST_DATABASE_URL!, 20)
    : createPGliteHandle(
        new PGlite({
          ...pgliteOptions(),
          loadDataDir: new Blob([readFileSync(path.resolve('tests/.tmp/pglite-migrated.tar.gz'))]),
        }),
      )
useDatabaseHandle(handle)

afterAll(async () => {
  await handle.db.destroy()
})
