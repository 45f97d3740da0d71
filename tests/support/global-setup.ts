// Once per test run: bring a test database to the latest migration.
// - PGlite: the migrated database is saved as a dump that every test file loads (0.5 s) instead of
//   creating one (3-6 s).
// - PostgreSQL: a schema per vitest worker of this run, dropped at the end, so concurrent files and
//   concurrent runs never collide.
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
    // Each vitest worker migrates a schema of its own on first use (tests/support/setup-db.ts), named
    // after this one: files run in parallel and never share rows. All of them go at the end.
    const schema = `test_${runId}`
    project.provide('pgSchema', schema)
    project.provide('pgliteDump', '')
    return async () => {
      const cleanup = createPostgresHandle(process.env.TEST_DATABASE_URL!, 1)
      const { rows } = await sql<{ name: string }>`
        SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ${`${schema}%`}`.execute(cleanup.db)
      for (const { name } of rows) await sql`DROP SCHEMA ${sql.id(name)} CASCADE`.execute(cleanup.db)
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
