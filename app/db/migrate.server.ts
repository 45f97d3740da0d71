import { promises as fs } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely'
import type { DB } from './db.server'

const MIGRATIONS_DIR = path.resolve(process.cwd(), 'migrations')
const MIGRATION_FILE = /^\d{4}-[\w-]+\.ts$/

// Migrations are TypeScript files loaded by name order; tsx (the server) and vitest both import them.
class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly dir: string) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(this.dir)).filter((f) => MIGRATION_FILE.test(f)).sort()
    const migrations: Record<string, Migration> = {}
    for (const file of files) {
      migrations[file.replace(/\.ts$/, '')] = await import(pathToFileURL(path.join(this.dir, file)).href)
    }
    return migrations
  }
}

/** The newest migration's name (the file name without .ts): a database that has it is up to date. */
export async function latestMigrationName(): Promise<string | null> {
  const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => MIGRATION_FILE.test(f)).sort()
  return files.at(-1)?.replace(/\.ts$/, '') ?? null
}

/** `schema` names where Kysely keeps its own bookkeeping tables when not the default (tests). */
export async function migrateToLatest(db: DB, options: { schema?: string } = {}): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: new FolderMigrationProvider(MIGRATIONS_DIR),
    migrationTableSchema: options.schema,
  })
  const result = await migrator.migrateToLatest()
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${String(result.error)}`, {
      cause: result.error,
    })
  }
  return result
}
