// Once per test run: bring a test database to the latest migration.
// - PGlite: the migrated database is saved as a dump that every test file loads (0.5 s) instead of
//   creating one (3-6 s).
// - PostgreSQL: a schema of this run's own, dropped at the end, so concurrent runs never collide.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import type { TestProject } from 'vitest/node'
import { createPGliteHandle, createPostgresHandle, pgliteOptions } from '../../app/db/db.server'
import { migrateToLatest } from '../../app/db/migrate.server'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string
    pgSchema: string
  }
}

export default async function setup(project: TestProject) {
  const runId = `${process.pid}_${Date.now()}`
  if (project.config.env?.TEST_DB === 'postgres') {
    const schema = `test_${runId}`
    const admin = createPostgresHandle(process.env.TEST_DATABASE_URL!, 1)
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(admin.db)
    await admin.db.destroy()
    const handle = createPostgresHandle(process.env.TEST_DATABASE_URL!, 2, schema)
    await migrateToLatest(handle.db, { schema })
    await handle.db.destroy()
    project.provide('pgSchema', schema)
    project.provide('pgliteDump', '')
    return async () => {
      const cleanup = createPostgresHandle(process.env.TEST_DATABASE_URL!, 1)
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(cleanup.db)
      await sql`DROP SCHEMA IF EXISTS ${sql.id(`${schema}_boss`)} CASCADE`.execute(cleanup.db)
      await cleanup.db.destroy()
    }
  }
  const pglite = new PGlite(pgliteOptions())
  const handle = createPGliteHandle(pglite)
  await migrateToLatest(handle.db)
  const dump = path.resolve(`tests/.tmp/pglite-${runId}.tar.gz`)
  mkdirSync(path.dirname(dump), { recursive: true })
  writeFileSync(dump, Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer()))
  await handle.db.destroy()
  project.provide('pgliteDump', dump)
  project.provide('pgSchema', '')
  return () => rmSync(dump, { force: true })
}
